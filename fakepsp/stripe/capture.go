package stripe

import (
	"net/http"
	"strings"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// Separate authorization and capture (capture_method=manual), cancel and
// update. Each is a POST with its own idempotency key, scoped to its path
// like every other POST: same key and parameters replay, other parameters
// answer 400 idempotency_error.

// lookupIntent returns the intent the path names, pinned (the caller
// unpins it), and a copy of its state under p.mu.
func (p *API) lookupIntent(c *call) (*Intent, core.State, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pi, err := c.acct.intents.pin(c.r.PathValue("id"))
	if pi == nil {
		return nil, 0, err
	}
	return pi, pi.State, nil
}

// unpin ends the request's hold on pi (intentBook.pin).
func (p *API) unpin(c *call, pi *Intent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c.acct.intents.unpin(pi)
}

// captureIntent captures an authorization (core.Ops.Capture moves the
// money) and renders the intent and its events.
func (p *API) captureIntent(c *call) response {
	pi, state, err := p.lookupIntent(c)
	switch {
	case err != nil:
		return storageError(err)
	case pi == nil:
		return notFound("intent", "payment_intent", c.r.PathValue("id"))
	}
	defer p.unpin(c, pi)
	if state != core.StateAuthorized {
		return CaptureState(Status(state))
	}
	amount, present, bad := c.params.Int64("amount_to_capture")
	if bad != nil {
		return *bad
	}
	if present && amount < 1 {
		return errResp(http.StatusBadRequest, Error{Type: "invalid_request_error", Code: "parameter_invalid_integer", Param: "amount_to_capture",
			Message: "This value must be greater than or equal to 1."})
	}
	md, bad := c.params.MetadataUpdate()
	if bad != nil {
		return *bad
	}
	ops := p.ops
	amount, refused := ops.CaptureAmount(&pi.Payment, amount, !present)
	if refused.Reason == core.ReasonTooLarge {
		return errResp(http.StatusBadRequest, Error{Type: "invalid_request_error", Code: "amount_too_large", Param: "amount_to_capture",
			Message: "The payment could not be captured because the requested capture amount is greater than the amount you can capture for this charge."})
	}
	c.begin()
	var snap map[string]any
	var evs []*event
	out := ops.Capture(&pi.Payment, core.Capture{Key: c.idemKey, Amount: amount, Metadata: md}, core.Hooks{
		Locked: func(o core.Outcome) {
			snap = pi.Snapshot()
			evs = []*event{p.newEventLocked(c, "charge.captured", pi.ChargeJSON(), o.Target),
				p.newEventLocked(c, "payment_intent.succeeded", snap, o.Target)}
		},
		Published: func() { p.dispatchAll(c.acct, evs) },
	})
	switch out.Reason {
	case core.ReasonInternal:
		return apiError()
	case core.ReasonState:
		return CaptureState(Status(out.State)) // a concurrent capture or cancel won
	}
	if r := c.after(out.After); r != nil {
		return *r
	}
	return ok(snap)
}

// cancelIntent cancels (core.Ops.Cancel releases an authorization) and
// renders the intent and its event.
func (p *API) cancelIntent(c *call) response {
	pi, state, err := p.lookupIntent(c)
	switch {
	case err != nil:
		return storageError(err)
	case pi == nil:
		return notFound("intent", "payment_intent", c.r.PathValue("id"))
	}
	defer p.unpin(c, pi)
	if !state.Cancelable() {
		return CancelState(Status(state))
	}
	reason := c.params.Str("cancellation_reason")
	switch reason {
	case "", "duplicate", "fraudulent", "requested_by_customer", "abandoned":
	default:
		return invalidParam("cancellation_reason", "Invalid cancellation_reason: must be one of duplicate, fraudulent, requested_by_customer, or abandoned")
	}
	c.begin()
	var snap map[string]any
	var ev *event
	out := p.ops.Cancel(&pi.Payment, c.idemKey, core.Hooks{
		Locked: func(o core.Outcome) {
			pi.setCancelReason(reason)
			snap = pi.Snapshot()
			ev = p.newEventLocked(c, "payment_intent.canceled", snap, o.Target)
		},
		Published: func() { p.dispatch(c.acct, ev) },
	})
	switch out.Reason {
	case core.ReasonInternal:
		return apiError()
	case core.ReasonState:
		return CancelState(Status(out.State))
	}
	if r := c.after(out.After); r != nil {
		return *r
	}
	return ok(snap)
}

// updateIntent changes an intent before it is confirmed (core.Ops.Update)
// and renders it; Stripe's capture_method and description are its own.
func (p *API) updateIntent(c *call) response {
	pi, state, err := p.lookupIntent(c)
	switch {
	case err != nil:
		return storageError(err)
	case pi == nil:
		return notFound("intent", "payment_intent", c.r.PathValue("id"))
	}
	defer p.unpin(c, pi)
	for _, f := range []string{"amount", "currency", "payment_method", "capture_method"} {
		if c.params.Has(f) && !state.Updatable() {
			return UpdateState(f, Status(state))
		}
	}
	amount, present, bad := c.params.Int64("amount")
	if bad != nil {
		return *bad
	}
	if present && (amount < 1 || amount > 99999999) {
		return errResp(http.StatusBadRequest, Error{Type: "invalid_request_error", Code: "parameter_invalid_integer", Param: "amount",
			Message: "This value must be greater than or equal to 1 and no more than 99999999."})
	}
	currency := strings.ToLower(c.params.Str("currency"))
	if c.params.Has("currency") && !KnownCurrency(currency) {
		return invalidParam("currency", "Invalid currency: "+c.params.Str("currency")+".")
	}
	capture, bad := c.params.CaptureMethod("")
	if bad != nil {
		return *bad
	}
	md, bad := c.params.MetadataUpdate()
	if bad != nil {
		return *bad
	}
	c.begin()
	if !present {
		amount = 0
	}
	var snap map[string]any
	p.ops.Update(&pi.Payment, core.Update{Amount: amount, Currency: currency, Method: c.params.Str("payment_method"), Metadata: md}, core.Hooks{
		Locked: func(core.Outcome) {
			if capture != "" {
				pi.SetCapture(capture)
			}
			if c.params.Has("description") {
				pi.setDescription(c.params.Str("description"))
			}
			snap = pi.Snapshot()
		},
	})
	return ok(snap)
}

func oneOf(s string, set []string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}
