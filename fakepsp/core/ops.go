package core

import (
	"context"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// Ops runs the payment operations every PSP has (create, confirm, capture,
// cancel, refund) over the PSP's shared parts: the state checks made at the
// moment of the effect, the money moves, the ground truth and the faults of
// the effect point. A dialect parses a request into one of them and renders
// its Outcome; its own records and events it makes in Hooks, so they change
// under the same lock, at the same moment, as the money.
type Ops struct {
	Ctx    context.Context  // the PSP's: closing it ends a gated or delayed request
	Lock   sync.Locker      // guards every Payment
	Now    func() time.Time // the PSP's clock; called under Lock
	Faults *Faults
	Truth  *GroundTruth
	// Spill keeps on disk what the dialect must keep but need not hold in
	// memory (spill.go); nil keeps everything in memory (unit tests).
	Spill *spill.Store
}

// Hooks are the dialect's part of an operation.
type Hooks struct {
	// Locked runs under Ops.Lock right after the payment changed: the
	// dialect records, renders and raises its events here.
	Locked func(Outcome)
	// Published runs after the lock is released and the ground truth
	// written, before the faults after the effect: it delivers the events.
	Published func()
}

func (h Hooks) locked(o Outcome) {
	if h.Locked != nil {
		h.Locked(o)
	}
}

func (h Hooks) published() {
	if h.Published != nil {
		h.Published()
	}
}

// Reason says why an operation did not do what was asked.
type Reason int

// The reasons; the zero Reason is done.
const (
	Done Reason = iota
	// ReasonInternal: a fault before the effect (or the PSP closing while
	// it held the request) answers the dialect's internal error; nothing
	// happened.
	ReasonInternal
	// ReasonState: the payment's state (Outcome.State) does not allow the
	// operation; a concurrent request changed it first.
	ReasonState
	// ReasonDeclined: the method declined; the payment needs another.
	ReasonDeclined
	// ReasonNothingLeft: nothing is left to refund (Outcome.Left is 0).
	ReasonNothingLeft
	// ReasonTooLarge: the amount asked is more than Outcome.Left.
	ReasonTooLarge
)

// Outcome is what an operation did.
type Outcome struct {
	Reason Reason
	// State is the payment's state after the operation, or the state that
	// refused it (ReasonState).
	State State
	// Amount is the amount the operation moved or held.
	Amount int64
	// Left is what could still be captured or refunded, when that refused it.
	Left int64
	// RefundID is the dialect's id of the refund a Refund made.
	RefundID string
	// Target is what the faults of the effect point matched on; the
	// dialect's events carry it, so webhook faults match the same.
	Target Target
	// After is what the faults after the effect make of the answer (on a
	// Done or a declined operation): refuse it, lose it or hold it.
	After AfterEffect
}

// effect is the shape every operation with an effect shares: the faults
// before it, the change under the lock, the ground truth, the dialect's
// events, the faults after it. change returns the op to record (nil for
// none) and the outcome; a refused change records nothing and skips the
// faults after the effect.
func (o Ops) effect(t Target, h Hooks, change func() (*history.Op, Outcome)) Outcome {
	if o.Faults.BeforeEffect(o.Ctx, t) {
		return Outcome{Reason: ReasonInternal}
	}
	o.Lock.Lock()
	op, out := change()
	out.Target = t
	if out.Reason != Done && out.Reason != ReasonDeclined {
		o.Lock.Unlock()
		return out
	}
	h.locked(out)
	o.Lock.Unlock()
	if op != nil {
		o.Truth.Add(*op)
	}
	h.published()
	out.After = o.Faults.AfterEffect(o.Ctx, t)
	return out
}
