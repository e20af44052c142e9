package core

import "github.com/idemcheck/idemcheck/checker/history"

// CaptureAmount is what a capture of p would take: amount, or, when the
// request named none (whole), all that is authorized. More than that is
// refused with ReasonTooLarge (Outcome.Left says how much is capturable);
// it is checked before the capture begins, so nothing is saved under its key.
func (o Ops) CaptureAmount(p *Payment, amount int64, whole bool) (int64, Outcome) {
	o.Lock.Lock()
	capturable := p.Capturable
	o.Lock.Unlock()
	if whole {
		amount = capturable
	}
	if amount > capturable {
		return 0, Outcome{Reason: ReasonTooLarge, Left: capturable}
	}
	return amount, Outcome{}
}

// Capture is a capture of an authorization.
type Capture struct {
	Key    string // the request's idempotency key
	Amount int64  // from CaptureAmount
	// Metadata updates the payment's as it is captured
	// (Payment.UpdateMetadata), before its ground-truth op copies it.
	Metadata map[string]*string
}

// Capture captures p's authorization: here, and only here, a manual
// payment's money moves, so the ground truth gets one charge op of the
// amount captured, under the capture request's key; the rest is released.
// A payment no longer authorized (a concurrent capture or cancel won) is
// refused with ReasonState.
func (o Ops) Capture(p *Payment, in Capture, h Hooks) Outcome {
	t := Target{Key: in.Key, Amount: in.Amount, Op: "charge"}
	return o.effect(t, h, func() (*history.Op, Outcome) {
		if p.State != StateAuthorized {
			return nil, Outcome{Reason: ReasonState, State: p.State}
		}
		p.UpdateMetadata(in.Metadata)
		p.State = StateSucceeded
		p.Capture(in.Amount, in.Key)
		op := EffectOp("charge", in.Key, in.Amount, p.Metadata.Map())
		op.Output.ChargeID = p.AttemptID
		op.Input.Currency = p.Currency // wrong-amount compares it with the request
		return &op, Outcome{State: p.State, Amount: in.Amount}
	})
}
