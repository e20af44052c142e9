package stripe

import (
	"net/http"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// Charges. A PaymentIntent's successful charge is the intent itself
// (account.charges); a declined confirmation leaves a failed Charge of its
// own (account.failed), as Stripe does, and sets the intent's latest_charge
// to it until a later confirmation succeeds.

// chargeObject is the Charge id names, successful or failed; the caller
// holds p.mu.
func (a *account) chargeObject(id string) map[string]any {
	if pi := a.charges[id]; pi != nil && pi.AttemptID == id {
		return pi.ChargeJSON()
	}
	if fc := a.failed[id]; fc != nil {
		return fc.JSON()
	}
	return nil
}

// declineLocked renders a declined confirmation of pi (core.Ops.Confirm
// made the attempt and put the intent back to requires_payment_method): a
// failed charge, the intent's last_payment_error, and the 402 Stripe
// answers. The caller holds p.mu.
func (p *API) declineLocked(c *call, pi *Intent, pm string, d Decline, t core.Target) (response, []*event) {
	fc := &FailedCharge{ID: pi.AttemptID, Intent: pi, Method: pm, Amount: pi.Amount, Currency: pi.Currency,
		Metadata: pi.Metadata.Map(), Created: pi.AttemptAt, Decline: d}
	c.acct.failed[fc.ID] = fc
	c.acct.chargeSeq = append(c.acct.chargeSeq, fc.ID)
	// last_payment_error carries no payment_intent (the intent holds it);
	// the 402's error carries a fresh copy of the intent.
	le := CardError(d, fc.ID, pm)
	pi.setLastError(&le)
	snap := pi.Snapshot()
	e := CardError(d, fc.ID, pm)
	e.PaymentIntent = snap
	evs := []*event{p.newEventLocked(c, "charge.failed", fc.JSON(), t), p.newEventLocked(c, "payment_intent.payment_failed", snap, t)}
	return errResp(http.StatusPaymentRequired, e), evs
}

func (p *API) retrieveCharge(c *call) response {
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
func (p *API) listCharges(c *call) response {
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
