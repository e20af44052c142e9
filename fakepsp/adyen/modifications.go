package adyen

import (
	"net/http"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// The modifications of a payment, by the last segment of their path.
const (
	ModCapture  = "captures"
	ModRefund   = "refunds"
	ModCancel   = "cancels"
	ModReversal = "reversals"
)

// Modify is POST /payments/{pspReference}/{kind}. Adyen answers 201
// "received" to a well-formed modification of a payment it knows, and
// says whether it succeeded only in the modification's notification
// (success "false" with the reason): a capture of a payment no longer
// authorised, a refund of more than was captured. The money moves (or not)
// here, in the core, at the moment the request runs.
func (a *API) Modify(kind, psp string, body []byte, key string) Answer {
	req, bad := ParseModification(body, kind == ModCapture || kind == ModRefund)
	if bad != nil {
		return Answer{Reply: core.Reply{Status: bad.Status, Body: bad}}
	}
	a.Ops.Lock.Lock()
	p := a.Book.Get(psp)
	a.Ops.Lock.Unlock()
	if p == nil {
		return Answer{Reply: Err(http.StatusUnprocessableEntity, CodeNotFound, "Original pspReference required for this operation", "validation")}
	}
	if a.Merchant != "" && req.MerchantAccount != a.Merchant {
		return Answer{Reply: Err(http.StatusForbidden, "901", "Invalid Merchant Account", "security")}
	}
	if req.Amount != nil && req.Amount.Currency != p.Currency {
		return Answer{Reply: Err(http.StatusUnprocessableEntity, "137", "Invalid amount specified", "validation")}
	}
	ref := NewPSPReference()
	item := Item{PSPReference: ref, OriginalReference: p.ID, MerchantAccountCode: p.MerchantAccount, MerchantReference: p.Reference,
		PaymentMethod: p.Method, Amount: Amount{Currency: p.Currency}, Success: "true"}
	var out core.Outcome
	switch kind {
	case ModCapture:
		item.EventCode, item.Amount.Value = EventCapture, req.Amount.Value
		out = a.capture(p, req.Amount.Value, key, &item)
	case ModRefund:
		item.EventCode, item.Amount.Value = EventRefund, req.Amount.Value
		out = a.Ops.Refund(&p.Payment, core.Refund{Key: key, Amount: req.Amount.Value, RefundID: func() string { return ref }}, a.hooks(&item, p.Amount))
	case ModCancel:
		item.EventCode = EventCancellation
		out = a.Ops.Cancel(&p.Payment, key, a.hooks(&item, p.Amount))
	case ModReversal:
		item.EventCode = EventCancelOrRefund
		out = a.reverse(p, key, &item)
	default:
		return Answer{Reply: Err(http.StatusNotFound, "000", "Not found", "validation")}
	}
	if out.Reason == core.ReasonInternal {
		return Answer{Reply: a.internal()}
	}
	if out.Reason != core.Done {
		// Refused by the payment's state or money: received all the same,
		// and a notification that says it failed.
		item.Success, item.Reason = "false", failReason(out)
		item.EventDate = EventDate(a.now())
		a.emit(item, p.Amount, out.Target)()
	}
	resp := ModificationResponse{MerchantAccount: req.MerchantAccount, PaymentPSPReference: p.ID, PSPReference: ref,
		Reference: req.Reference, Status: StatusReceived, Amount: req.Amount}
	return Answer{Reply: core.Reply{Status: http.StatusCreated, Body: resp}, After: out.After, Began: true}
}

// hooks raise item, about a payment of amount, once the operation's
// change is made.
func (a *API) hooks(item *Item, amount int64) core.Hooks {
	var t core.Target
	return core.Hooks{
		Locked: func(o core.Outcome) {
			item.EventDate, t = EventDate(a.now()), o.Target
			if item.Amount.Value == 0 {
				item.Amount.Value = o.Amount
			}
		},
		Published: func() { a.emit(*item, amount, t)() },
	}
}

// capture checks the amount against what is authorised, then captures.
func (a *API) capture(p *Payment, amount int64, key string, item *Item) core.Outcome {
	v, refused := a.Ops.CaptureAmount(&p.Payment, amount, false)
	if refused.Reason != core.Done {
		return refused
	}
	return a.Ops.Capture(&p.Payment, core.Capture{Key: key, Amount: v}, a.hooks(item, p.Amount))
}

// reverse cancels an authorised payment or refunds a captured one in
// full: Adyen's reversal, whichever applies when it runs.
func (a *API) reverse(p *Payment, key string, item *Item) core.Outcome {
	state, left := a.Ops.Refundable(&p.Payment)
	if state == core.StateSucceeded {
		item.AdditionalData = map[string]string{"modification.action": "refund"}
		return a.Ops.Refund(&p.Payment, core.Refund{Key: key, Amount: left, Whole: true, RefundID: func() string { return item.PSPReference }}, a.hooks(item, p.Amount))
	}
	item.AdditionalData = map[string]string{"modification.action": "cancel"}
	return a.Ops.Cancel(&p.Payment, key, a.hooks(item, p.Amount))
}

// failReason is the notification's reason for a modification the
// payment's state or money refused.
func failReason(o core.Outcome) string {
	switch o.Reason {
	case core.ReasonTooLarge:
		return "Insufficient in process amount"
	case core.ReasonNothingLeft:
		return "Nothing left to refund"
	}
	return "Modification not allowed in the payment's state"
}
