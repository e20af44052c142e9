package stripe

import (
	"net/http"
	"strconv"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

func (p *API) createRefund(c *call) response {
	piID, chID := c.params.Str("payment_intent"), c.params.Str("charge")
	if piID == "" && chID == "" {
		return missingParam("payment_intent")
	}
	amount, present, bad := c.params.Int64("amount")
	if bad != nil {
		return *bad
	}
	if present && amount < 1 {
		return errResp(http.StatusBadRequest, Error{Type: "invalid_request_error", Code: "parameter_invalid_integer", Param: "amount",
			Message: "This value must be greater than or equal to 1."})
	}
	md, bad := c.params.Metadata()
	if bad != nil {
		return *bad
	}
	reason := c.params.Str("reason")
	switch reason {
	case "", "duplicate", "fraudulent", "requested_by_customer":
	default:
		return invalidParam("reason", "Invalid reason: must be one of duplicate, fraudulent, or requested_by_customer.")
	}
	p.mu.Lock()
	pi, param, id, failed, err := c.acct.refundTarget(piID, chID)
	p.mu.Unlock()
	switch {
	case err != nil:
		return storageError(err)
	case failed:
		return errResp(http.StatusBadRequest, Error{Type: "invalid_request_error", Code: "charge_not_refundable", Param: "charge", Charge: chID,
			Message: "Charge " + chID + " has failed and cannot be refunded."})
	case pi == nil:
		return notFound(param, param, id)
	}
	defer p.unpin(c, pi)
	ops := p.ops
	state, left := ops.Refundable(&pi.Payment)
	if state != core.StateSucceeded {
		return errResp(http.StatusBadRequest, Error{Type: "invalid_request_error", Code: "charge_not_refundable", Param: param,
			Message: "This PaymentIntent does not have a successful charge to refund."})
	}
	c.begin()
	if !present {
		amount = left
	}
	var body map[string]any
	var evs []*event
	out := ops.Refund(&pi.Payment, core.Refund{Key: c.idemKey, Amount: amount, Whole: !present, Request: md["refund_request"],
		RefundID: func() string { return newID("re") }}, core.Hooks{
		Locked: func(o core.Outcome) {
			rf := &Refund{ID: o.RefundID, Amount: o.Amount, Intent: pi.ID, Currency: pi.Currency, Charge: pi.AttemptID, Metadata: md, Reason: reason, Created: p.nowLocked().Unix()}
			c.acct.refunds.add(rf)
			body = rf.JSON()
			evs = []*event{p.newEventLocked(c, "charge.refunded", pi.ChargeJSON(), o.Target), p.newEventLocked(c, "refund.created", body, o.Target)}
		},
		Published: func() { p.dispatchAll(c.acct, evs) },
	})
	switch out.Reason {
	case core.ReasonInternal:
		return apiError()
	case core.ReasonNothingLeft:
		return errResp(http.StatusBadRequest, Error{Type: "invalid_request_error", Code: "charge_already_refunded", Charge: pi.AttemptID,
			Message: "Charge " + pi.AttemptID + " has already been refunded."})
	case core.ReasonTooLarge:
		return errResp(http.StatusBadRequest, Error{Type: "invalid_request_error", Code: "amount_too_large", Param: "amount",
			Message: "Refund amount (" + strconv.FormatInt(out.Amount, 10) + ") is greater than unrefunded amount on charge (" + strconv.FormatInt(out.Left, 10) + ")."})
	}
	if r := c.after(out.After); r != nil {
		return *r
	}
	return ok(body)
}

func (p *API) retrieveRefund(c *call) response {
	id := c.r.PathValue("id")
	p.mu.Lock()
	defer p.mu.Unlock()
	rf, err := c.acct.refunds.get(id)
	if err != nil {
		return storageError(err)
	}
	if rf == nil {
		return notFound("id", "refund", id)
	}
	return ok(rf.JSON())
}

// listRefunds lists refunds, newest first, optionally of one payment_intent
// or charge (GET /v1/refunds).
func (p *API) listRefunds(c *call) response {
	piID, chID := c.params.Str("payment_intent"), c.params.Str("charge")
	p.mu.Lock()
	defer p.mu.Unlock()
	if piID != "" {
		pi, err := c.acct.intents.peek(piID)
		switch {
		case err != nil:
			return storageError(err)
		case pi == nil:
			return notFound("payment_intent", "payment_intent", piID)
		}
	}
	if chID != "" {
		ch, err := c.acct.chargeObject(chID)
		switch {
		case err != nil:
			return storageError(err)
		case ch == nil:
			return notFound("charge", "charge", chID)
		}
	}
	var items []any
	var ids []string
	if err := c.acct.refunds.each(func(rf *Refund) bool {
		if piID != "" && rf.Intent != piID || chID != "" && rf.Charge != chID {
			return true
		}
		items, ids = append(items, rf.JSON()), append(ids, rf.ID)
		return true
	}); err != nil {
		return storageError(err)
	}
	return paginate(c, "/v1/refunds", ids, items)
}

// refundTarget is the intent a refund names, by payment_intent (piID) or
// by charge (chID), pinned (the caller unpins it); param and id are what a
// 404 names, failed says chID is a declined charge. The caller holds p.mu.
func (a *account) refundTarget(piID, chID string) (pi *Intent, param, id string, failed bool, err error) {
	if piID != "" {
		pi, err = a.intents.pin(piID)
		return pi, "payment_intent", piID, false, err
	}
	if fc, err := a.failed.get(chID); fc != nil || err != nil {
		return nil, "charge", chID, fc != nil, err
	}
	if pi, err = a.chargeIntent(chID); pi != nil {
		pi, err = a.intents.pin(pi.ID)
	}
	return pi, "charge", chID, false, err
}
