package checkout

import (
	"net/http"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// Payment is what Checkout.com keeps of one payment.
type Payment struct {
	core.Payment
	Reference string
}

// Core is the core's part.
func (p *Payment) Core() *core.Payment { return &p.Payment }

// api is one account's payments over the core; raise hands an event to
// the account's endpoints after the lock is released.
type api struct {
	ops   core.Ops
	book  *core.Book[*Payment]
	raise func(*Event)
}

// answer is an operation's reply, the faults after its effect, and whether
// it was processed (a 2xx: only then is it kept under its key).
type answer struct {
	reply core.Reply
	after core.AfterEffect
}

// pay is POST /payments: authorised, and captured at once unless capture
// is false. The 201 says Authorized either way; the capture is reported by
// payment_captured. The money moves here, when captured at once.
func (a *api) pay(body []byte, key string) answer {
	req, bad := ParsePayment(body)
	if bad != nil {
		return answer{reply: *bad}
	}
	md := map[string]string{"reference": req.Reference}
	for k, v := range req.Metadata {
		md[k] = v
	}
	p := &Payment{Payment: core.Payment{Amount: *req.Amount, Currency: req.Currency, Method: req.Method(), Manual: !req.Captured(), Metadata: core.MetadataOf(md)},
		Reference: req.Reference}
	a.ops.Create(&p.Payment, core.Hooks{Locked: func(core.Outcome) {
		p.ID = newID("pay")
		a.book.Add(p)
	}})
	action := newID("act")
	t := core.Target{Key: key, Amount: p.Amount, Op: "charge"}
	if p.Manual {
		t.Op = "authorize"
	}
	var evs []*Event
	out := a.ops.Confirm(&p.Payment, core.Confirm{Key: key, Method: p.Method, AttemptID: func() string { return p.ID }}, core.Hooks{
		Locked: func(o core.Outcome) {
			now := a.ops.Now()
			evs = append(evs, newEvent(EventApproved, p, action, p.Amount, t, now))
			if o.State == core.StateSucceeded {
				evs = append(evs, newEvent(EventCaptured, p, newID("act"), p.Amount, t, now))
			}
		},
		Published: func() { a.emit(evs...) }})
	if out.Reason != core.Done {
		return answer{reply: Err(http.StatusBadGateway, "bad_gateway")}
	}
	return answer{reply: core.Reply{Status: http.StatusCreated, Body: PaymentResponse{ID: p.ID, ActionID: action, Amount: p.Amount,
		Currency: p.Currency, Approved: true, Status: "Authorized", ResponseCode: "10000", ResponseSummary: "Approved",
		Reference: p.Reference, Metadata: req.Metadata}}, after: out.After}
}

func (a *api) emit(evs ...*Event) {
	for _, e := range evs {
		a.raise(e)
	}
}

// act is POST /payments/{id}/{captures|refunds|voids}: 202 and an action
// id when it was done; 403 "not allowed" when the payment's state or money
// refused it, 404 for a payment it does not know.
func (a *api) act(kind, id string, body []byte, key string) answer {
	var req ActionRequest
	_ = jsonUnmarshal(body, &req)
	a.ops.Lock.Lock()
	p := a.book.Get(id)
	a.ops.Lock.Unlock()
	if p == nil {
		return answer{reply: core.Reply{Status: http.StatusNotFound}}
	}
	action := newID("act")
	var ev *Event
	hooks := func(typ string) core.Hooks {
		return core.Hooks{
			Locked:    func(o core.Outcome) { ev = newEvent(typ, p, action, o.Amount, o.Target, a.ops.Now()) },
			Published: func() { a.emit(ev) },
		}
	}
	var out core.Outcome
	switch kind {
	case "captures":
		amount, whole := int64(0), req.Amount == nil
		if !whole {
			amount = *req.Amount
		}
		v, refused := a.ops.CaptureAmount(&p.Payment, amount, whole)
		out = refused
		if refused.Reason == core.Done {
			out = a.ops.Capture(&p.Payment, core.Capture{Key: key, Amount: v}, hooks(EventCaptured))
		}
	case "refunds":
		_, left := a.ops.Refundable(&p.Payment)
		in := core.Refund{Key: key, Amount: left, Whole: req.Amount == nil, RefundID: func() string { return action }}
		if req.Amount != nil {
			in.Amount = *req.Amount
		}
		out = a.ops.Refund(&p.Payment, in, hooks(EventRefunded))
	case "voids":
		out = a.ops.Cancel(&p.Payment, key, hooks(EventVoided))
	default:
		return answer{reply: core.Reply{Status: http.StatusNotFound}}
	}
	switch out.Reason {
	case core.Done:
		return answer{reply: core.Reply{Status: http.StatusAccepted, Body: ActionResponse{ActionID: action, Reference: req.Reference}}, after: out.After}
	case core.ReasonInternal:
		return answer{reply: Err(http.StatusBadGateway, "bad_gateway")}
	}
	return answer{reply: Err(http.StatusForbidden, notAllowed[kind])}
}

// notAllowed are the 403s of the API reference: an action the payment's
// state or money does not allow.
var notAllowed = map[string]string{"captures": "capture_not_allowed", "refunds": "refund_not_allowed", "voids": "void_not_allowed"}
