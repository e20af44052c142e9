package adyen

import (
	"net/http"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// Pay is POST /payments: the payment is made, authorised (or refused by its
// test card) and, unless a manual capture was asked, captured at once: the
// one place its money moves. Adyen answers 200 with the resultCode whether
// it was authorised or refused, and raises an AUTHORISATION either way.
func (a *API) Pay(body []byte, key string) Answer {
	req, bad := ParsePayment(body)
	if bad != nil {
		return Answer{Reply: core.Reply{Status: bad.Status, Body: bad}}
	}
	if a.Merchant != "" && req.MerchantAccount != a.Merchant {
		return Answer{Reply: Err(http.StatusForbidden, "901", "Invalid Merchant Account", "security")}
	}
	md := map[string]string{"reference": req.Reference}
	for k, v := range req.Metadata {
		md[k] = v
	}
	merchant := req.MerchantAccount
	if merchant == a.Merchant {
		merchant = a.Merchant // the one configured string, not a copy per payment
	}
	p := &Payment{Payment: core.Payment{Amount: req.Amount.Value, Currency: req.Amount.Currency, Method: Method(req.PaymentMethod),
		Manual: req.Manual(), Metadata: core.MetadataOf(md)}, Reference: req.Reference, MerchantAccount: merchant}
	a.Ops.Create(&p.Payment, core.Hooks{Locked: func(core.Outcome) {
		p.ID = NewPSPReference()
		a.Book.Add(p)
	}})
	card := CardOutcome(req.PaymentMethod)
	var item Item
	out := a.Ops.Confirm(&p.Payment, core.Confirm{Key: key, Method: p.Method, Declined: card.ResultCode != ResultAuthorised,
		AttemptID: func() string { return p.ID }}, core.Hooks{
		Locked: func(o core.Outcome) { item = a.authorisation(p, card, o) },
		Published: func() {
			if item.EventCode != "" {
				a.emit(item, p.Amount, core.Target{Key: key, Amount: p.Amount, Op: "charge"})()
			}
		}})
	if out.Reason == core.ReasonInternal || out.Reason == core.ReasonState {
		return Answer{Reply: a.internal()}
	}
	resp := PaymentResponse{PSPReference: p.ID, ResultCode: card.ResultCode, MerchantReference: p.Reference,
		RefusalReason: card.RefusalReason, RefusalReasonCode: card.RefusalReasonCode}
	if out.Reason == core.Done {
		resp.Amount = &Amount{Currency: p.Currency, Value: p.Amount}
	}
	return Answer{Reply: core.Reply{Status: http.StatusOK, Body: resp}, After: out.After, Began: true}
}

// authorisation is the AUTHORISATION item of a confirmation; under the lock.
func (a *API) authorisation(p *Payment, card Outcome, o core.Outcome) Item {
	it := Item{PSPReference: p.ID, MerchantAccountCode: p.MerchantAccount, MerchantReference: p.Reference,
		Amount: Amount{Value: p.Amount, Currency: p.Currency}, EventCode: EventAuthorisation, EventDate: EventDate(a.now()),
		PaymentMethod: p.Method, Success: "true"}
	if o.Reason == core.ReasonDeclined {
		it.Success, it.Reason = "false", card.RefusalReason
	} else {
		it.Operations = []string{"CANCEL", "CAPTURE", "REFUND"}
	}
	return it
}

// internal is the answer to an operation a fault refused before it ran.
func (a *API) internal() core.Reply { return internalError() }
