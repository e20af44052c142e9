package core

import "github.com/idemcheck/idemcheck/checker/history"

// Cancelable: a cancel may run (not once the money moved or it was canceled).
func (s State) Cancelable() bool {
	return s == StateNoMethod || s == StateHasMethod || s == StateAuthorized
}

// Cancel cancels p under key: an authorization is released, no money
// moves, so the ground truth gets no op; the faults of the effect point
// fire with Op "cancel". A payment no longer cancelable (a concurrent
// capture or cancel won) is refused with ReasonState.
func (o Ops) Cancel(p *Payment, key string, h Hooks) Outcome {
	o.Lock.Lock()
	amount := p.Amount
	o.Lock.Unlock()
	return o.effect(Target{Key: key, Amount: amount, Op: "cancel"}, h, func() (*history.Op, Outcome) {
		if !p.State.Cancelable() {
			return nil, Outcome{Reason: ReasonState, State: p.State}
		}
		p.State, p.CanceledAt = StateCanceled, o.Now().Unix()
		released := p.Capturable
		p.Cancel()
		return nil, Outcome{State: p.State, Amount: released}
	})
}
