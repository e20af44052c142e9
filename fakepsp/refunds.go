package fakepsp

import (
	"net/http"
	"strconv"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// refund is one refund of a charge. Guarded by PSP.mu.
type refund struct {
	id       string
	amount   int64
	pi       *paymentIntent
	charge   string
	metadata map[string]string
	reason   string
	created  int64
}

func (r *refund) json() map[string]any {
	var reason any
	if r.reason != "" {
		reason = r.reason
	}
	return fill(map[string]any{
		"id": r.id, "object": "refund", "amount": r.amount, "charge": r.charge, "payment_intent": r.pi.ID,
		"currency": r.pi.Currency, "status": "succeeded", "metadata": nonNil(r.metadata), "reason": reason,
		"created": r.created, "balance_transaction": refundTxnID(r),
		"destination_details": map[string]any{"type": "card", "card": map[string]any{"reference": nil,
			"reference_status": "pending", "reference_type": "acquirer_reference_number", "type": "refund"}},
	}, refundNulls)
}

func (p *PSP) createRefund(c *call) response {
	piID, chID := c.params.Str("payment_intent"), c.params.Str("charge")
	if piID == "" && chID == "" {
		return missingParam("payment_intent")
	}
	amount, present, bad := c.params.Int64("amount")
	if bad != nil {
		return *bad
	}
	if present && amount < 1 {
		return errResp(http.StatusBadRequest, stripeError{Type: "invalid_request_error", Code: "parameter_invalid_integer", Param: "amount",
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
	pi, param, id := c.acct.intents[piID], "payment_intent", piID
	var failed bool
	if piID == "" {
		pi, param, id = c.acct.charges[chID], "charge", chID
		failed = c.acct.failed[chID] != nil
	}
	succeeded := pi != nil && pi.State == core.StateSucceeded
	var piAmount int64
	if pi != nil {
		piAmount = pi.Refundable()
	}
	p.mu.Unlock()
	switch {
	case failed:
		return errResp(http.StatusBadRequest, stripeError{Type: "invalid_request_error", Code: "charge_not_refundable", Param: "charge", Charge: chID,
			Message: "Charge " + chID + " has failed and cannot be refunded."})
	case pi == nil:
		return notFound(param, param, id)
	case !succeeded:
		return errResp(http.StatusBadRequest, stripeError{Type: "invalid_request_error", Code: "charge_not_refundable", Param: param,
			Message: "This PaymentIntent does not have a successful charge to refund."})
	}
	c.begin()
	t := target{Key: c.idemKey, Amount: amount, Op: "refund"}
	if !present {
		t.Amount = piAmount
	}
	if r := c.beforeCharge(t); r != nil {
		return *r
	}
	p.mu.Lock()
	left := pi.Refundable()
	if !present {
		amount = left
	}
	switch {
	case left == 0:
		p.mu.Unlock()
		return errResp(http.StatusBadRequest, stripeError{Type: "invalid_request_error", Code: "charge_already_refunded", Charge: pi.AttemptID,
			Message: "Charge " + pi.AttemptID + " has already been refunded."})
	case amount > left:
		p.mu.Unlock()
		return errResp(http.StatusBadRequest, stripeError{Type: "invalid_request_error", Code: "amount_too_large", Param: "amount",
			Message: "Refund amount (" + strconv.FormatInt(amount, 10) + ") is greater than unrefunded amount on charge (" + strconv.FormatInt(left, 10) + ")."})
	}
	rf := &refund{id: newID("re"), amount: amount, pi: pi, charge: pi.AttemptID, metadata: md, reason: reason, created: p.nowLocked().Unix()}
	pi.Refund(amount)
	c.acct.refunds[rf.id] = rf
	op := core.EffectOp("refund", c.idemKey, amount, pi.Metadata)
	op.Input.ChargeID = pi.AttemptID
	// The refund request it carries out, when the caller names one: two
	// refunds of one request under two keys are a double-refund.
	op.Input.Request = md["refund_request"]
	op.Output.RefundID = rf.id
	c.acct.refundSeq = append(c.acct.refundSeq, rf)
	body := rf.json()
	evs := []*event{p.newEventLocked(c, "charge.refunded", pi.chargeJSON(), t), p.newEventLocked(c, "refund.created", body, t)}
	p.mu.Unlock()
	p.truth.Add(op)
	for _, ev := range evs {
		p.dispatch(c.acct, ev)
	}
	if r := c.afterCharge(t); r != nil {
		return *r
	}
	return ok(body)
}

func (p *PSP) retrieveRefund(c *call) response {
	id := c.r.PathValue("id")
	p.mu.Lock()
	defer p.mu.Unlock()
	rf := c.acct.refunds[id]
	if rf == nil {
		return notFound("id", "refund", id)
	}
	return ok(rf.json())
}

// listRefunds lists refunds, newest first, optionally of one payment_intent
// or charge (GET /v1/refunds).
func (p *PSP) listRefunds(c *call) response {
	piID, chID := c.params.Str("payment_intent"), c.params.Str("charge")
	p.mu.Lock()
	defer p.mu.Unlock()
	if piID != "" && c.acct.intents[piID] == nil {
		return notFound("payment_intent", "payment_intent", piID)
	}
	if chID != "" && c.acct.chargeObject(chID) == nil {
		return notFound("charge", "charge", chID)
	}
	var items []any
	var ids []string
	for i := len(c.acct.refundSeq) - 1; i >= 0; i-- {
		rf := c.acct.refundSeq[i]
		if piID != "" && rf.pi.ID != piID || chID != "" && rf.charge != chID {
			continue
		}
		items, ids = append(items, rf.json()), append(ids, rf.id)
	}
	return paginate(c, "/v1/refunds", ids, items)
}
