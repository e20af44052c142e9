package fakepsp

import (
	"net/http"
	"strings"

	wire "github.com/idemcheck/idemcheck/fakepsp/stripe"
)

// Charges. A PaymentIntent's successful charge is the intent itself
// (account.charges); a declined confirmation leaves a failed Charge of its
// own (account.failed), as Stripe does, and sets the intent's latest_charge
// to it until a later confirmation succeeds.

// failedCharge is a declined attempt. Guarded by PSP.mu.
type failedCharge struct {
	id       string
	pi       *paymentIntent
	pm       string
	amount   int64
	currency string
	metadata map[string]string
	created  int64
	d        wire.Decline
}

// chargeJSON is the Charge object behind a PaymentIntent that was charged
// or authorized. An authorization never captured (or the part of it a
// partial capture left) counts as refunded, as Stripe shows it.
func (pi *paymentIntent) chargeJSON() map[string]any {
	refunded := pi.Released + pi.Refunded
	ch := chargeBase(pi.AttemptID, pi, pi.Method, pi.Amount, pi.Currency, pi.Metadata, pi.AttemptAt)
	ch["amount_captured"], ch["amount_refunded"], ch["refunded"] = pi.Received, refunded, refunded == pi.Amount
	ch["captured"], ch["paid"], ch["status"] = pi.Received > 0, true, "succeeded"
	ch["balance_transaction"] = orNull(balanceTxnID(pi))
	ch["outcome"] = wire.Outcome(nil)
	ch["payment_method_details"] = wire.PaymentMethodDetails(pi.Method, pi.Amount, pi.AttemptID)
	return wire.Fill(ch, wire.ChargeNulls)
}

func (fc *failedCharge) json() map[string]any {
	ch := chargeBase(fc.id, fc.pi, fc.pm, fc.amount, fc.currency, fc.metadata, fc.created)
	ch["amount_captured"], ch["amount_refunded"], ch["refunded"] = int64(0), int64(0), false
	ch["captured"], ch["paid"], ch["status"] = false, false, "failed"
	ch["balance_transaction"] = nil
	ch["failure_code"], ch["failure_message"] = fc.d.Code, fc.d.Message
	ch["outcome"] = wire.Outcome(&fc.d)
	ch["payment_method_details"] = wire.PaymentMethodDetails(fc.pm, 0, fc.id)
	return wire.Fill(ch, wire.ChargeNulls)
}

// chargeBase holds the fields every charge has, whatever its outcome.
func chargeBase(id string, pi *paymentIntent, pm string, amount int64, currency string, md map[string]string, created int64) map[string]any {
	return map[string]any{
		"id": id, "object": "charge", "amount": amount, "currency": currency, "payment_intent": pi.ID,
		"payment_method": pm, "metadata": nonNil(md), "created": created, "livemode": false,
		"customer": orNull(pi.customer), "description": orNull(pi.description), "disputed": false,
		"failure_code": nil, "failure_message": nil, "fraud_details": map[string]any{},
		"billing_details": wire.BillingDetails(), "calculated_statement_descriptor": "IDEMCHECK",
		"receipt_url": "https://pay.stripe.com/receipts/payment/" + strings.TrimPrefix(id, "ch_"),
	}
}

// chargeObject is the Charge id names, successful or failed; the caller
// holds p.mu.
func (a *account) chargeObject(id string) map[string]any {
	if pi := a.charges[id]; pi != nil && pi.AttemptID == id {
		return pi.chargeJSON()
	}
	if fc := a.failed[id]; fc != nil {
		return fc.json()
	}
	return nil
}

// declineLocked renders a declined confirmation of pi (core.Ops.Confirm
// made the attempt and put the intent back to requires_payment_method): a
// failed charge, the intent's last_payment_error, and the 402 Stripe
// answers. The caller holds p.mu.
func (p *PSP) declineLocked(c *call, pi *paymentIntent, pm string, d wire.Decline, t target) (response, []*event) {
	fc := &failedCharge{id: pi.AttemptID, pi: pi, pm: pm, amount: pi.Amount, currency: pi.Currency,
		metadata: pi.Metadata, created: pi.AttemptAt, d: d}
	c.acct.failed[fc.id] = fc
	c.acct.chargeSeq = append(c.acct.chargeSeq, fc.id)
	// last_payment_error carries no payment_intent (the intent holds it);
	// the 402's error carries a fresh copy of the intent.
	le := wire.CardError(d, fc.id, pm)
	pi.lastError = &le
	snap := pi.snapshot()
	e := wire.CardError(d, fc.id, pm)
	e.PaymentIntent = snap
	evs := []*event{p.newEventLocked(c, "charge.failed", fc.json(), t), p.newEventLocked(c, "payment_intent.payment_failed", snap, t)}
	return errResp(http.StatusPaymentRequired, e), evs
}

func (p *PSP) retrieveCharge(c *call) response {
	id := c.r.PathValue("id")
	p.mu.Lock()
	defer p.mu.Unlock()
	if ch := c.acct.chargeObject(id); ch != nil {
		return ok(ch)
	}
	return notFound("charge", "charge", id)
}

// listCharges lists charges, newest first, optionally of one payment_intent
// or customer (GET /v1/charges).
func (p *PSP) listCharges(c *call) response {
	piID, cus := c.params.Str("payment_intent"), c.params.Str("customer")
	p.mu.Lock()
	defer p.mu.Unlock()
	var items []any
	var ids []string
	for i := len(c.acct.chargeSeq) - 1; i >= 0; i-- {
		ch := c.acct.chargeObject(c.acct.chargeSeq[i])
		if ch == nil || piID != "" && ch["payment_intent"] != piID || cus != "" && ch["customer"] != cus {
			continue
		}
		items, ids = append(items, ch), append(ids, c.acct.chargeSeq[i])
	}
	return paginate(c, "/v1/charges", ids, items)
}
