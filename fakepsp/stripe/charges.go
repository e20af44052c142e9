package stripe

import (
	"net/http"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// Charges. A PaymentIntent's successful charge is the intent itself
// (account.charges); a declined confirmation leaves a failed Charge of its
// own (account.failed), as Stripe does, and sets the intent's latest_charge
// to it until a later confirmation succeeds.

// chargeObject is the Charge id names, successful or failed, nil when
// none; the caller holds p.mu.
func (a *account) chargeObject(id string) (map[string]any, error) {
	pi, err := a.chargeIntent(id)
	if pi != nil || err != nil {
		if err != nil {
			return nil, err
		}
		return pi.ChargeJSON(), nil
	}
	fc, err := a.failed.get(id)
	if fc == nil {
		return nil, err
	}
	return a.failedJSON(fc)
}

// declineLocked renders a declined confirmation of pi (core.Ops.Confirm
// made the attempt and put the intent back to requires_payment_method): a
// failed charge, the intent's last_payment_error, and the 402 Stripe
// answers. The caller holds p.mu.
func (p *API) declineLocked(c *call, pi *Intent, pm string, d Decline, t core.Target) (response, []*event) {
	fc := &FailedCharge{ID: pi.AttemptID, Intent: pi.ID, Method: pm, Amount: pi.Amount, Currency: pi.Currency,
		Metadata: pi.Metadata.Map(), Created: pi.AttemptAt, Decline: d}
	c.acct.failed.add(fc)
	// last_payment_error carries no payment_intent (the intent holds it);
	// the 402's error carries a fresh copy of the intent.
	le := CardError(d, fc.ID, pm)
	pi.setLastError(&le)
	snap := pi.Snapshot()
	e := CardError(d, fc.ID, pm)
	e.PaymentIntent = snap
	evs := []*event{p.newEventLocked(c, "charge.failed", fc.JSON(pi), t), p.newEventLocked(c, "payment_intent.payment_failed", snap, t)}
	return errResp(http.StatusPaymentRequired, e), evs
}

func (p *API) retrieveCharge(c *call) response {
	id := c.r.PathValue("id")
	p.mu.Lock()
	defer p.mu.Unlock()
	ch, err := c.acct.chargeObject(id)
	switch {
	case err != nil:
		return storageError(err)
	case ch == nil:
		return notFound("charge", "charge", id)
	}
	return ok(ch)
}

// listCharges lists charges, newest first, optionally of one payment_intent
// or customer (GET /v1/charges).
func (p *API) listCharges(c *call) response {
	piID, cus := c.params.Str("payment_intent"), c.params.Str("customer")
	p.mu.Lock()
	defer p.mu.Unlock()
	var items []any
	var ids []string
	err := c.acct.eachCharge(func(id string, ch map[string]any) bool {
		if (piID == "" || ch["payment_intent"] == piID) && (cus == "" || ch["customer"] == cus) {
			items, ids = append(items, ch), append(ids, id)
		}
		return true
	})
	if err != nil {
		return storageError(err)
	}
	return paginate(c, "/v1/charges", ids, items)
}
