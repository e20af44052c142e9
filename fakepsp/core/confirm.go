package core

import "github.com/idemcheck/idemcheck/checker/history"

// Create opens p, filled in by the dialect from the request (amount,
// currency, method, capture mode, metadata): it needs a method, or has
// one to confirm. No money moves, so no fault of the effect point fires.
func (o Ops) Create(p *Payment, h Hooks) Outcome {
	p.State = StateNoMethod
	if p.Method != "" {
		p.State = StateHasMethod
	}
	o.Lock.Lock()
	p.Created = o.Now().Unix()
	out := Outcome{State: p.State}
	h.locked(out)
	o.Lock.Unlock()
	h.published()
	return out
}

// Confirm is a confirmation of a payment with a method.
type Confirm struct {
	Key    string // the request's idempotency key ("" for none)
	Method string
	// Declined: the dialect's test method declines (Stripe's
	// pm_card_chargeDeclined...): an attempt is made, no money moves.
	Declined bool
	// AttemptID is the dialect's id for the attempt (Stripe's ch_),
	// made under the lock at the moment of the attempt.
	AttemptID func() string
}

// Confirm confirms p: the one place money moves for a payment captured at
// once (a ground-truth charge under in.Key). A manual-capture payment is
// only authorized here, with no ground-truth op; its money moves at
// Capture. A confirmation that finds p no longer confirmable (another won
// while this one waited at the effect point) is refused with ReasonState.
func (o Ops) Confirm(p *Payment, in Confirm, h Hooks) Outcome {
	o.Lock.Lock()
	manual, amount := p.Manual, p.Amount
	o.Lock.Unlock()
	t := Target{Key: in.Key, Amount: amount, Op: "charge"}
	if manual {
		t.Op = "authorize"
	}
	return o.effect(t, h, func() (*history.Op, Outcome) {
		if !p.State.Confirmable() {
			return nil, Outcome{Reason: ReasonState, State: p.State}
		}
		p.Method = in.Method
		p.AttemptID, p.AttemptAt = in.AttemptID(), o.Now().Unix()
		switch {
		case in.Declined:
			p.State = StateNoMethod
			return nil, Outcome{Reason: ReasonDeclined, State: p.State}
		case manual:
			p.State = StateAuthorized
			p.Authorize()
			return nil, Outcome{State: p.State, Amount: p.Amount}
		}
		p.State = StateSucceeded
		p.Settle(in.Key)
		op := EffectOp("charge", in.Key, p.Amount, p.Metadata.Map())
		op.Output.ChargeID = p.AttemptID
		op.Input.Currency = p.Currency // wrong-amount compares it with the request
		return &op, Outcome{State: p.State, Amount: p.Amount}
	})
}
