package core

import (
	"context"
	"time"
)

// The effect point: where the faults around an effect (a charge, an
// authorization, a capture, a cancel or a refund) fire, the same for every
// dialect. Before: gate, delay, 500 (nothing happens). After: delay, 500
// (the effect stands), lose or hold the reply (the answer is saved first).

// BeforeEffect fires the faults due before the effect; true means answer
// the dialect's internal error instead of doing it (an Error500BeforeCharge,
// or the PSP closing while a gate or a delay held the request).
func (fs *Faults) BeforeEffect(ctx context.Context, t Target) (refuse bool) {
	if f := fs.Fire(GateBeforeCharge, t); f != nil {
		select {
		case <-f.Released():
		case <-ctx.Done():
			return true
		}
	}
	if f := fs.Fire(DelayBeforeCharge, t); f != nil && !Sleep(ctx, f.Spec().Delay) {
		return true
	}
	return fs.Fire(Error500BeforeCharge, t) != nil
}

// AfterEffect is what the faults due after the effect make of its answer.
type AfterEffect struct {
	Refuse bool   // answer the internal error instead of the real answer
	Lose   bool   // close the connection instead of answering
	Hold   *Fault // hold the answer until this fault is released
}

// AfterEffect fires the faults due after the effect.
func (fs *Faults) AfterEffect(ctx context.Context, t Target) AfterEffect {
	var out AfterEffect
	if f := fs.Fire(DelayAfterCharge, t); f != nil {
		Sleep(ctx, f.Spec().Delay)
	}
	out.Refuse = fs.Fire(Error500AfterCharge, t) != nil
	if fs.Fire(LoseReply, t) != nil {
		out.Lose = true
	} else if f := fs.Fire(HoldReply, t); f != nil {
		out.Hold = f
	}
	return out
}

// Sleep waits d unless ctx ends first; false when it ended.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
