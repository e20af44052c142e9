package core

import "github.com/idemcheck/idemcheck/checker/history"

// Refundable is p's state and what can still be refunded of it, read
// under the lock: a dialect checks both before a refund begins.
func (o Ops) Refundable(p *Payment) (State, int64) {
	o.Lock.Lock()
	defer o.Lock.Unlock()
	return p.State, p.Refundable()
}

// Refund is a refund of a payment's captured money.
type Refund struct {
	Key string // the request's idempotency key
	// Amount to refund; with Whole (the request named none), what
	// Refundable said, and the refund takes all that is left when it runs.
	Amount int64
	Whole  bool
	// Request names the refund request it carries out, when the caller
	// names one: two refunds of one request under two keys are a
	// double-refund (history.Input.Request).
	Request string
	// RefundID is the dialect's id for the refund (Stripe's re_), made
	// under the lock when the refund is made.
	RefundID func() string
}

// Refund refunds in.Amount of p: a ground-truth refund op under in.Key,
// against p's charge. The amount is checked at the moment of the effect:
// nothing left is ReasonNothingLeft, more than is left ReasonTooLarge
// (Outcome.Left says how much), and nothing is refunded.
func (o Ops) Refund(p *Payment, in Refund, h Hooks) Outcome {
	t := Target{Key: in.Key, Amount: in.Amount, Op: "refund"}
	return o.effect(t, h, func() (*history.Op, Outcome) {
		left, amount := p.Refundable(), in.Amount
		if in.Whole {
			amount = left
		}
		switch {
		case left == 0:
			return nil, Outcome{Reason: ReasonNothingLeft, State: p.State}
		case amount > left:
			return nil, Outcome{Reason: ReasonTooLarge, State: p.State, Amount: amount, Left: left}
		}
		id := in.RefundID()
		p.Refund(amount)
		op := EffectOp("refund", in.Key, amount, p.Metadata.Map())
		op.Input.ChargeID = p.AttemptID
		op.Input.Request = in.Request
		op.Output.RefundID = id
		return &op, Outcome{State: p.State, Amount: amount, RefundID: id}
	})
}
