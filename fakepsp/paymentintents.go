package fakepsp

import (
	"net/http"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
	wire "github.com/idemcheck/idemcheck/fakepsp/stripe"
)

// paymentIntent is a PaymentIntent: the core's payment (its state, method,
// attempts and money) and what only Stripe keeps of it. Guarded by PSP.mu.
type paymentIntent struct {
	core.Payment
	// captureMethod is Stripe's word for Payment.Manual: automatic,
	// automatic_async (captured at once too) or manual; setCapture sets both.
	captureMethod string
	description   string
	customer      string
	cancelReason  string
	lastError     *stripeError
	versions      []piVersion // what search may see, with its lag
}

// Core is the core's part of the intent (core.Record).
func (pi *paymentIntent) Core() *core.Payment { return &pi.Payment }

func (pi *paymentIntent) setCapture(m string) { pi.captureMethod, pi.Manual = m, m == "manual" }

// status is the intent's status in Stripe's words.
func (pi *paymentIntent) status() string { return wire.Status(pi.State) }

// piVersion is the PaymentIntent as it was at one moment (real time).
type piVersion struct {
	at   time.Time
	snap map[string]any
}

func (pi *paymentIntent) json() map[string]any {
	var latest, lastErr, canceledAt, reason any
	if pi.AttemptID != "" {
		latest = pi.AttemptID
	}
	if pi.lastError != nil {
		lastErr = *pi.lastError
	}
	if pi.CanceledAt != 0 {
		canceledAt = pi.CanceledAt
	}
	if pi.cancelReason != "" {
		reason = pi.cancelReason
	}
	return wire.Fill(map[string]any{
		"id": pi.ID, "object": "payment_intent", "amount": pi.Amount, "amount_received": pi.Received,
		"amount_capturable": pi.Capturable, "currency": pi.Currency, "status": pi.status(), "metadata": nonNil(pi.Metadata),
		"payment_method": orNull(pi.Method), "customer": orNull(pi.customer), "latest_charge": latest, "last_payment_error": lastErr,
		"description": orNull(pi.description), "canceled_at": canceledAt, "cancellation_reason": reason,
		"created": pi.Created, "livemode": false, "capture_method": pi.captureMethod, "confirmation_method": "automatic",
		"client_secret": pi.ID + "_secret_" + pi.ID[len(pi.ID)-6:], "payment_method_types": []string{"card"},
		"payment_method_options": map[string]any{"card": map[string]any{"installments": nil, "mandate_options": nil,
			"network": nil, "request_three_d_secure": "automatic"}},
	}, wire.IntentNulls)
}

func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// snapshot records a version for search; call after every change.
func (pi *paymentIntent) snapshot() map[string]any {
	s := pi.json()
	pi.versions = append(pi.versions, piVersion{at: time.Now(), snap: s})
	return s
}

func (p *PSP) createIntent(c *call) response {
	amount, present, bad := c.params.Int64("amount")
	switch {
	case bad != nil:
		return *bad
	case !present:
		return missingParam("amount")
	case amount < 1:
		return errResp(http.StatusBadRequest, stripeError{Type: "invalid_request_error", Code: "parameter_invalid_integer", Param: "amount",
			Message: "This value must be greater than or equal to 1."})
	case amount > 99999999:
		return errResp(http.StatusBadRequest, stripeError{Type: "invalid_request_error", Code: "amount_too_large", Param: "amount",
			Message: "Amount must be no more than 99999999."})
	}
	currency := strings.ToLower(c.params.Str("currency"))
	if !c.params.Has("currency") {
		return missingParam("currency")
	}
	if !wire.KnownCurrency(currency) {
		return invalidParam("currency", "Invalid currency: "+c.params.Str("currency")+".")
	}
	md, bad := c.params.Metadata()
	if bad != nil {
		return *bad
	}
	confirm, bad := c.params.Bool("confirm")
	if bad != nil {
		return *bad
	}
	capture, bad := captureMethod(c.params, "automatic")
	if bad != nil {
		return *bad
	}
	pm := c.params.Str("payment_method")
	if confirm && pm == "" {
		return wire.MissingPM()
	}
	cus, bad := p.customerParam(c)
	if bad != nil {
		return *bad
	}
	c.begin()
	pi := &paymentIntent{Payment: core.Payment{ID: newID("pi"), Amount: amount, Currency: currency, Method: pm, Metadata: md},
		description: c.params.Str("description"), customer: cus}
	pi.setCapture(capture)
	var snap map[string]any
	var ev *event
	p.ops().Create(&pi.Payment, core.Hooks{
		Locked: func(core.Outcome) {
			c.acct.intents.Add(pi)
			snap = pi.snapshot()
			ev = p.newEventLocked(c, "payment_intent.created", snap, target{Key: c.idemKey, Amount: amount, Op: opOf(c)})
		},
		Published: func() { p.dispatch(c.acct, ev) },
	})
	if !confirm {
		return ok(snap)
	}
	return p.charge(c, pi, pm)
}

// captureMethod reads capture_method; automatic_async captures at once too.
func captureMethod(prm params, dflt string) (string, *response) {
	switch m := prm.Str("capture_method"); m {
	case "":
		return dflt, nil
	case "automatic", "automatic_async", "manual":
		return m, nil
	default:
		e := invalidParam("capture_method", "Invalid capture_method: must be one of automatic, automatic_async, or manual")
		return "", &e
	}
}

func (p *PSP) confirmIntent(c *call) response {
	id := c.r.PathValue("id")
	p.mu.Lock()
	pi := c.acct.intents.Get(id)
	var state core.State
	var pm string
	if pi != nil {
		state, pm = pi.State, pi.Method
	}
	p.mu.Unlock()
	if pi == nil {
		return notFound("intent", "payment_intent", id)
	}
	if x := c.params.Str("payment_method"); x != "" {
		pm = x
	}
	if !state.Confirmable() {
		return wire.UnexpectedState(wire.Status(state))
	}
	if pm == "" {
		return wire.MissingPM()
	}
	capture, bad := captureMethod(c.params, "")
	if bad != nil {
		return *bad
	}
	c.begin()
	if capture != "" {
		p.mu.Lock()
		pi.setCapture(capture)
		p.mu.Unlock()
	}
	return p.charge(c, pi, pm)
}

// charge confirms pi with pm (core.Ops.Confirm moves the money) and renders
// it: the intent, its Charge (a failed one and the 402 for a decline of
// Stripe's test cards) and their events.
func (p *PSP) charge(c *call, pi *paymentIntent, pm string) response {
	d, declined := wire.DeclineOf(pm)
	var resp response
	var evs []*event
	out := p.ops().Confirm(&pi.Payment, core.Confirm{Key: c.idemKey, Method: pm, Declined: declined,
		AttemptID: func() string { return newID("ch") }}, core.Hooks{
		Locked: func(o core.Outcome) {
			t := o.Target
			if declined {
				resp, evs = p.declineLocked(c, pi, pm, d, t)
				return
			}
			pi.lastError = nil
			c.acct.charges[pi.AttemptID] = pi
			c.acct.chargeSeq = append(c.acct.chargeSeq, pi.AttemptID)
			snap := pi.snapshot()
			resp = ok(snap)
			evs = append(evs, p.newEventLocked(c, "charge.succeeded", pi.chargeJSON(), t))
			if o.State == core.StateAuthorized {
				evs = append(evs, p.newEventLocked(c, "payment_intent.amount_capturable_updated", snap, t))
			} else {
				evs = append(evs, p.newEventLocked(c, "payment_intent.succeeded", snap, t))
			}
		},
		Published: func() {
			for _, ev := range evs {
				p.dispatch(c.acct, ev)
			}
		},
	})
	switch out.Reason {
	case core.ReasonInternal:
		return apiError()
	case core.ReasonState:
		return wire.UnexpectedState(wire.Status(out.State)) // another confirm won while this one waited
	}
	if r := c.after(out.After); r != nil {
		return *r
	}
	return resp
}

func (p *PSP) retrieveIntent(c *call) response {
	id := c.r.PathValue("id")
	p.mu.Lock()
	defer p.mu.Unlock()
	pi := c.acct.intents.Get(id)
	if pi == nil {
		return notFound("intent", "payment_intent", id)
	}
	return ok(pi.json())
}

func (p *PSP) listIntents(c *call) response {
	cus := c.params.Str("customer")
	p.mu.Lock()
	defer p.mu.Unlock()
	var items []any
	var ids []string
	all := c.acct.intents.All()
	for i := len(all) - 1; i >= 0; i-- {
		if pi := all[i]; cus == "" || pi.customer == cus {
			items, ids = append(items, pi.json()), append(ids, pi.ID)
		}
	}
	return paginate(c, "/v1/payment_intents", ids, items)
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
