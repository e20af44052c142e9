package fakepsp

import (
	"net/http"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// paymentIntent is the PSP's state of one PaymentIntent and its charge.
// Guarded by PSP.mu.
type paymentIntent struct {
	core.Payment  // its money: amounts authorized, captured, released, refunded
	id            string
	status        string
	captureMethod string // "automatic" or "manual"
	metadata      map[string]string
	description   string
	paymentMethod string
	customer      string
	created       int64
	latestCharge  string
	chargeCreated int64
	canceledAt    int64
	cancelReason  string
	lastError     *stripeError
	versions      []piVersion // what search may see, with its lag
}

// piVersion is the PaymentIntent as it was at one moment (real time).
type piVersion struct {
	at   time.Time
	snap map[string]any
}

const (
	statusRequiresPM      = "requires_payment_method"
	statusRequiresConfirm = "requires_confirmation"
	statusRequiresCapture = "requires_capture"
	statusCanceled        = "canceled"
	statusSucceeded       = "succeeded"
)

func (pi *paymentIntent) json() map[string]any {
	var latest, lastErr, canceledAt, reason any
	if pi.latestCharge != "" {
		latest = pi.latestCharge
	}
	if pi.lastError != nil {
		lastErr = *pi.lastError
	}
	if pi.canceledAt != 0 {
		canceledAt = pi.canceledAt
	}
	if pi.cancelReason != "" {
		reason = pi.cancelReason
	}
	return fill(map[string]any{
		"id": pi.id, "object": "payment_intent", "amount": pi.Amount, "amount_received": pi.Received,
		"amount_capturable": pi.Capturable, "currency": pi.Currency, "status": pi.status, "metadata": nonNil(pi.metadata),
		"payment_method": orNull(pi.paymentMethod), "customer": orNull(pi.customer), "latest_charge": latest, "last_payment_error": lastErr,
		"description": orNull(pi.description), "canceled_at": canceledAt, "cancellation_reason": reason,
		"created": pi.created, "livemode": false, "capture_method": pi.captureMethod, "confirmation_method": "automatic",
		"client_secret": pi.id + "_secret_" + pi.id[len(pi.id)-6:], "payment_method_types": []string{"card"},
		"payment_method_options": map[string]any{"card": map[string]any{"installments": nil, "mandate_options": nil,
			"network": nil, "request_three_d_secure": "automatic"}},
	}, intentNulls)
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
	if !knownCurrency(currency) {
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
		return missingPM()
	}
	cus, bad := p.customerParam(c)
	if bad != nil {
		return *bad
	}
	c.begin()
	pi := &paymentIntent{Payment: core.Payment{Amount: amount, Currency: currency}, id: newID("pi"), metadata: md, captureMethod: capture,
		description: c.params.Str("description"), paymentMethod: pm, customer: cus, status: statusRequiresPM}
	if pm != "" {
		pi.status = statusRequiresConfirm
	}
	p.mu.Lock()
	pi.created = p.nowLocked().Unix()
	c.acct.intents[pi.id] = pi
	c.acct.intentSeq = append(c.acct.intentSeq, pi)
	snap := pi.snapshot()
	ev := p.newEventLocked(c, "payment_intent.created", snap, target{Key: c.idemKey, Amount: amount, Op: opOf(c)})
	p.mu.Unlock()
	p.dispatch(c.acct, ev)
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
	pi := c.acct.intents[id]
	var status, pm string
	if pi != nil {
		status, pm = pi.status, pi.paymentMethod
	}
	p.mu.Unlock()
	if pi == nil {
		return notFound("intent", "payment_intent", id)
	}
	if x := c.params.Str("payment_method"); x != "" {
		pm = x
	}
	if status != statusRequiresPM && status != statusRequiresConfirm {
		return unexpectedState(status)
	}
	if pm == "" {
		return missingPM()
	}
	capture, bad := captureMethod(c.params, "")
	if bad != nil {
		return *bad
	}
	c.begin()
	if capture != "" {
		p.mu.Lock()
		pi.captureMethod = capture
		p.mu.Unlock()
	}
	return p.charge(c, pi, pm)
}

// charge confirms pi with pm: the one place money moves for a PaymentIntent
// captured at once. A manual-capture intent is only authorized here (no
// ground-truth op); its money moves at capture (capture.go).
func (p *PSP) charge(c *call, pi *paymentIntent, pm string) response {
	p.mu.Lock()
	manual := pi.captureMethod == "manual"
	p.mu.Unlock()
	t := target{Key: c.idemKey, Amount: pi.Amount, Op: "charge"}
	if manual {
		t.Op = "authorize"
	}
	if r := c.beforeCharge(t); r != nil {
		return *r
	}
	p.mu.Lock()
	if pi.status != statusRequiresPM && pi.status != statusRequiresConfirm {
		status := pi.status
		p.mu.Unlock()
		return unexpectedState(status) // another confirm won while this one waited
	}
	pi.paymentMethod = pm
	var resp response
	var evs []*event
	var op *history.Op
	if d, declined := declines[pm]; declined {
		resp, evs = p.declineLocked(c, pi, pm, d, t)
	} else {
		pi.lastError = nil
		pi.latestCharge, pi.chargeCreated = newID("ch"), p.nowLocked().Unix()
		c.acct.charges[pi.latestCharge] = pi
		c.acct.chargeSeq = append(c.acct.chargeSeq, pi.latestCharge)
		if manual {
			pi.status = statusRequiresCapture
			pi.Authorize()
		} else {
			pi.status = statusSucceeded
			pi.Settle(c.idemKey)
			o := core.EffectOp("charge", c.idemKey, pi.Amount, pi.metadata)
			o.Output.ChargeID = pi.latestCharge
			o.Input.Currency = pi.Currency // wrong-amount compares it with the request
			op = &o
		}
		snap := pi.snapshot()
		resp = ok(snap)
		evs = append(evs, p.newEventLocked(c, "charge.succeeded", pi.chargeJSON(), t))
		if manual {
			evs = append(evs, p.newEventLocked(c, "payment_intent.amount_capturable_updated", snap, t))
		} else {
			evs = append(evs, p.newEventLocked(c, "payment_intent.succeeded", snap, t))
		}
	}
	p.mu.Unlock()
	if op != nil {
		p.truth.Add(*op)
	}
	for _, ev := range evs {
		p.dispatch(c.acct, ev)
	}
	if r := c.afterCharge(t); r != nil {
		return *r
	}
	return resp
}

func (p *PSP) retrieveIntent(c *call) response {
	id := c.r.PathValue("id")
	p.mu.Lock()
	defer p.mu.Unlock()
	pi := c.acct.intents[id]
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
	for i := len(c.acct.intentSeq) - 1; i >= 0; i-- {
		if pi := c.acct.intentSeq[i]; cus == "" || pi.customer == cus {
			items, ids = append(items, pi.json()), append(ids, pi.id)
		}
	}
	return paginate(c, "/v1/payment_intents", ids, items)
}

func unexpectedState(status string) response {
	return errResp(http.StatusBadRequest, stripeError{Type: "invalid_request_error", Code: "payment_intent_unexpected_state",
		Message: "You cannot confirm this PaymentIntent because it has a status of " + status + "."})
}

func missingPM() response {
	return errResp(http.StatusBadRequest, stripeError{Type: "invalid_request_error", Code: "payment_intent_unexpected_state", Param: "payment_method",
		Message: "You cannot confirm this PaymentIntent because it's missing a payment method."})
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
