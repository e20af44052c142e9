package stripe

import (
	"fmt"
	"net/http"
	"strings"
	"unique"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

func (p *API) createIntent(c *call) response {
	amount, present, bad := c.params.Int64("amount")
	switch {
	case bad != nil:
		return *bad
	case !present:
		return missingParam("amount")
	case amount < 1:
		return errResp(http.StatusBadRequest, Error{Type: "invalid_request_error", Code: "parameter_invalid_integer", Param: "amount",
			Message: "This value must be greater than or equal to 1."})
	case amount > 99999999:
		return errResp(http.StatusBadRequest, Error{Type: "invalid_request_error", Code: "amount_too_large", Param: "amount",
			Message: "Amount must be no more than 99999999."})
	}
	currency := strings.ToLower(c.params.Str("currency"))
	if !c.params.Has("currency") {
		return missingParam("currency")
	}
	if !KnownCurrency(currency) {
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
	capture, bad := c.params.CaptureMethod("automatic")
	if bad != nil {
		return *bad
	}
	pm := c.params.Str("payment_method")
	if confirm && pm == "" {
		return MissingPM()
	}
	cus, bad := p.customerParam(c)
	if bad != nil {
		return *bad
	}
	c.begin()
	// A soak's intents share a few currencies and methods: one string each
	// (unique), not a copy of the request's per intent.
	pi := &Intent{Payment: core.Payment{ID: newID("pi"), Amount: amount, Currency: unique.Make(currency).Value(),
		Method: unique.Make(pm).Value(), Metadata: core.MetadataOf(md)},
		store: &p.versions}
	pi.setDescription(c.params.Str("description"))
	pi.setCustomer(cus)
	pi.SetCapture(capture)
	var snap map[string]any
	var ev *event
	defer p.unpin(c, pi) // Add pinned it
	p.ops.Create(&pi.Payment, core.Hooks{
		Locked: func(core.Outcome) {
			c.acct.intents.Add(pi)
			snap = pi.Snapshot()
			ev = p.newEventLocked(c, "payment_intent.created", snap, core.Target{Key: c.idemKey, Amount: amount, Op: opOf(c)})
		},
		Published: func() { p.dispatch(c.acct, ev) },
	})
	if !confirm {
		return ok(snap)
	}
	return p.charge(c, pi, pm)
}

func (p *API) confirmIntent(c *call) response {
	id := c.r.PathValue("id")
	p.mu.Lock()
	pi, err := c.acct.intents.pin(id)
	var state core.State
	var pm string
	if pi != nil {
		state, pm = pi.State, pi.Method
	}
	p.mu.Unlock()
	switch {
	case err != nil:
		return storageError(err)
	case pi == nil:
		return notFound("intent", "payment_intent", id)
	}
	defer p.unpin(c, pi)
	if x := c.params.Str("payment_method"); x != "" {
		pm = x
	}
	if !state.Confirmable() {
		return UnexpectedState(Status(state))
	}
	if pm == "" {
		return MissingPM()
	}
	capture, bad := c.params.CaptureMethod("")
	if bad != nil {
		return *bad
	}
	c.begin()
	if capture != "" {
		p.mu.Lock()
		pi.SetCapture(capture)
		p.mu.Unlock()
	}
	return p.charge(c, pi, pm)
}

// charge confirms pi with pm (core.Ops.Confirm moves the money) and renders
// it: the intent, its Charge (a failed one and the 402 for a decline of
// Stripe's test cards) and their events.
func (p *API) charge(c *call, pi *Intent, pm string) response {
	d, declined := DeclineOf(pm)
	var resp response
	var evs []*event
	out := p.ops.Confirm(&pi.Payment, core.Confirm{Key: c.idemKey, Method: pm, Declined: declined,
		AttemptID: func() string { return newID("ch") }}, core.Hooks{
		Locked: func(o core.Outcome) {
			t := o.Target
			if declined {
				resp, evs = p.declineLocked(c, pi, pm, d, t)
				return
			}
			pi.setLastError(nil)
			c.acct.addCharge(pi)
			snap := pi.Snapshot()
			resp = ok(snap)
			evs = append(evs, p.newEventLocked(c, "charge.succeeded", pi.ChargeJSON(), t))
			if o.State == core.StateAuthorized {
				evs = append(evs, p.newEventLocked(c, "payment_intent.amount_capturable_updated", snap, t))
			} else {
				evs = append(evs, p.newEventLocked(c, "payment_intent.succeeded", snap, t))
			}
		},
		Published: func() { p.dispatchAll(c.acct, evs) },
	})
	switch out.Reason {
	case core.ReasonInternal:
		return apiError()
	case core.ReasonState:
		return UnexpectedState(Status(out.State)) // another confirm won while this one waited
	}
	if r := c.after(out.After); r != nil {
		return *r
	}
	return resp
}

func (p *API) retrieveIntent(c *call) response {
	id := c.r.PathValue("id")
	p.mu.Lock()
	defer p.mu.Unlock()
	pi, err := c.acct.intents.peek(id)
	switch {
	case err != nil:
		return storageError(err)
	case pi == nil:
		return notFound("intent", "payment_intent", id)
	}
	return ok(pi.JSON())
}

func (p *API) listIntents(c *call) response {
	cus := c.params.Str("customer")
	p.mu.Lock()
	defer p.mu.Unlock()
	// The ids only, the page's intents rendered after: a list of a soak's
	// thousands rendered every one, each decoded from disk, at once.
	var ids []string
	err := c.acct.intents.each(func(pi *Intent) bool {
		if cus == "" || pi.customer() == cus {
			ids = append(ids, pi.ID)
		}
		return true
	})
	if err != nil {
		return storageError(err)
	}
	return PaginateLazy(c.params, "/v1/payment_intents", ids, func(i int) (any, error) {
		pi, err := c.acct.intents.peek(ids[i])
		if err == nil && pi == nil {
			err = fmt.Errorf("fakepsp: PaymentIntent %s is listed but not found", ids[i])
		}
		if err != nil {
			return nil, err
		}
		return pi.JSON(), nil
	})
}
