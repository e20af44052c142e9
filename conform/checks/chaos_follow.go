package checks

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/pspfront"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/faults"
)

// shapeRun carries out the shapes of one chaos run and keeps what their
// judges need after it: the changed-meaning intents, the refunds sent.
type shapeRun struct {
	tally *shapeTally
	// alt is the other amount of each changed-meaning intent (by N), drawn
	// in plan order before the run, so the same seed sends the same amounts.
	alt map[int]int64
	// fields are the meaning fields each changed-meaning intent changes
	// (by N), one retry per field and one field per retry: every field, so
	// that one such intent carried out covers them all (drawing one field
	// per intent left half of them unchanged in a 20 s run), in an order
	// that starts one further on for each intent from a seeded start.
	fields map[int][]string

	mu      sync.Mutex
	changed []scenario.Intent
	refunds []*refundCase
}

// refundCase is one refund shape carried out: every refund call sent under
// its key, to be held against the PSP's refunds of the intent's charge.
type refundCase struct {
	in        scenario.Intent
	name      string
	pay, key  string
	atts      []*driver.Attempt
	lostFired bool
	// part is a partial refund's amount (0: the whole payment).
	part int64
}

func newShapeRun(e *scenario.Env, plan []Planned) *shapeRun {
	sr := &shapeRun{tally: newShapeTally(), alt: map[int]int64{}, fields: map[int][]string{}}
	fields, _ := e.MeaningFields()
	k := 0
	if len(fields) > 0 {
		k = e.Rand(fmt.Sprintf("chaos-meaning-%d", e.Run)).IntN(len(fields))
	}
	for _, p := range plan {
		if p.Shape == ShapeChangedMeaning && len(fields) > 0 {
			for i := range fields {
				sr.fields[p.N] = append(sr.fields[p.N], fields[(k+i)%len(fields)])
			}
			k++
			sr.alt[p.N] = e.NewIntent(p.Caller).Meaning.Amount // an amount no other intent uses
		}
	}
	return sr
}

func (sr *shapeRun) changedIntents() []scenario.Intent {
	sr.mu.Lock()
	defer sr.mu.Unlock()
	return append([]scenario.Intent(nil), sr.changed...)
}

// stretched is a shape's pause: its per cent of the request timeout.
func stretched(e *scenario.Env, p Planned) time.Duration {
	return e.Cfg.TimeoutD() * time.Duration(p.Stretch) / 100
}

// holdOwner holds the PSP's answer to the late-retry intent's charge, at
// the recording front or at fakepsp, until the late retry was answered, so
// the first copy is still in its PSP call when the retry reaches another
// instance (a real PSP that answers slowly; without either the shape
// relies on the intent's fault). It returns what lets the answer go, nil
// when nothing holds it.
func (sr *shapeRun) holdOwner(ctx context.Context, e *scenario.Env, p Planned, in scenario.Intent) func() {
	if p.Shape != ShapeLateRetry {
		return nil
	}
	switch {
	case e.Front != nil:
		return e.Front.Add(in.Meaning.OrderID, in.Meaning.Amount, pspfront.Hold).Stop
	case e.PSP != nil:
		f := scenario.ArmPSP(ctx, e, faults.PSPHoldReply, faults.Scope{Amount: in.Meaning.Amount, Times: 1})
		return func() { _ = f.Undo() } // disarms and lets the held answer go
	}
	return nil
}

// lateRetry sends the late-retry shape's retry, after its pause, to another
// instance than the first copy's, while the copies (sent with a long
// timeout, their PSP answers held) may still be in flight; then it lets
// the PSP's answers go. nil for every other shape.
func (sr *shapeRun) lateRetry(ctx context.Context, t *scenario.T, p Planned, in scenario.Intent, via string, release func()) *driver.Attempt {
	if p.Shape != ShapeLateRetry {
		return nil
	}
	start := history.Now()
	pause := stretched(t.Env, p)
	_ = scenario.SleepCtx(ctx, pause) // a cancelled run sends at once and ends
	a := t.Send(ctx, fmt.Sprintf("intent %d late retry %s after the first copy", p.N, pause.Round(time.Millisecond)), in, func(s *driver.Send) {
		s.Via = via
		if via == "" {
			s.Instance = 1
		}
	})
	if release != nil {
		release()
		t.Env.NoteFaultFor(fmt.Sprintf("late-retry psp answer held (intent %d)", p.N), t.Env.D.Intent(in.Caller, in.Key), start, history.Now())
	}
	return a
}

// pause is the long-pause shape: the client waits longer than one request
// may take before it sends again (a retry when the copies had no final
// answer, else a replay). nil for every other shape.
func (sr *shapeRun) pause(ctx context.Context, t *scenario.T, p Planned, in scenario.Intent) *driver.Attempt {
	if p.Shape != ShapePauseRetry {
		return nil
	}
	pause := stretched(t.Env, p)
	_ = scenario.SleepCtx(ctx, pause) // a cancelled run sends at once and ends
	return t.Send(ctx, fmt.Sprintf("intent %d retry after a %s pause", p.N, pause.Round(time.Millisecond)), in, nil)
}

// lastFinal is the last attempt with a final answer.
func lastFinal(atts []*driver.Attempt) *driver.Attempt {
	for i := len(atts) - 1; i >= 0; i-- {
		if atts[i] != nil && scenario.Final(atts[i]) {
			return atts[i]
		}
	}
	return nil
}

// followUp carries out what a shape sends once the intent had its final
// answer, and notes whether the shape really happened; resolved is the
// resolve shapes' RESOLVE, sent before or beside the copies.
func (sr *shapeRun) followUp(ctx context.Context, e *scenario.Env, t *scenario.T, p Planned, in scenario.Intent, atts []*driver.Attempt, late, resolved *driver.Attempt) {
	fin := lastFinal(atts)
	why := ""
	switch p.Shape {
	case ShapePlain, ShapePauseRetry:
	case ShapeLateRetry:
		why = lateOverlapped(atts, late)
	case ShapeResolveFirst, ShapeResolveRace:
		why = resolveDone(p, resolved, atts)
	case ShapeReordered, ShapeVolatile, ShapeChangedMeaning:
		if why = settled(fin); why == "" {
			sr.retryAsIs(ctx, e, t, p, in, fin)
		}
	case ShapeLookup:
		if why = settled(fin); why == "" && fin.PaymentID == "" {
			why = "the final answer named no payment"
		}
		if why == "" {
			recordedLookup(ctx, e, t, p, in, fin.PaymentID)
		}
	case ShapeRefundFull, ShapeRefundRepeat, ShapeRefundConcurrent, ShapeRefundPartial:
		switch {
		case fin == nil || fin.Outcome != history.OutcomeSucceeded:
			why = "the create never ended succeeded"
		case fin.PaymentID == "":
			why = "the create's success named no payment"
		default:
			sr.refund(ctx, e, t, p, in, fin.PaymentID)
		}
	}
	sr.tally.note(p.Shape, why)
	sr.tally.covered(p, why == "", sr.fields[p.N])
	if why != "" {
		e.Logf("  chaos: intent %d: shape %s not carried out: %s", p.N, p.Shape, why)
	}
}

// settled says why a follow-up of the create cannot be judged: it needs
// a claimed intent that ended succeeded or failed.
func settled(fin *driver.Attempt) string {
	switch {
	case fin == nil:
		return "the intent had no final answer"
	case fin.Outcome != history.OutcomeSucceeded && fin.Outcome != history.OutcomeFailed:
		return "the intent ended " + fin.Outcome
	}
	return ""
}

// lateOverlapped says why the late retry did not meet a copy in flight (""
// when it did): without a slow fault every copy is back long before it.
func lateOverlapped(copies []*driver.Attempt, late *driver.Attempt) string {
	if late == nil {
		return "the late retry was not sent"
	}
	for _, a := range copies {
		if a != nil && a != late && a.Call < late.Call && a.Return > late.Call {
			return ""
		}
	}
	return "every copy had its answer before the late retry was sent"
}

// retryAsIs sends the shape's retry of a final intent: the same request
// reordered, or with the volatile fields changed (a true retry, which must
// replay), or with one meaning field changed (a mismatch, which must be
// refused).
func (sr *shapeRun) retryAsIs(ctx context.Context, e *scenario.Env, t *scenario.T, p Planned, in scenario.Intent, fin *driver.Attempt) {
	switch p.Shape {
	case ShapeReordered:
		r := t.Send(ctx, fmt.Sprintf("intent %d same request, members reordered", p.N), in, func(s *driver.Send) { s.Reorder = true })
		refused(t, fin, r, fmt.Sprintf("a true retry of chaos intent %d with its JSON members reordered", p.N))
	case ShapeVolatile:
		vf := e.Cfg.Create.VolatileFields
		r := t.Send(ctx, fmt.Sprintf("intent %d same request, volatile fields changed", p.N), in, func(s *driver.Send) { s.Volatile = vf })
		refused(t, fin, r, fmt.Sprintf("a retry of chaos intent %d that changed only the volatile fields %v", p.N, vf))
	case ShapeChangedMeaning:
		// Empty when the create has no meaning field idemcheck can change.
		for _, field := range sr.fields[p.N] {
			ch := in
			if field == "amount" {
				ch.Meaning.Amount = sr.alt[p.N]
			} else {
				ch = e.Changed(in, field)
			}
			m := t.Send(ctx, fmt.Sprintf("intent %d same key, %s (a mismatch)", p.N, scenario.ChangedField(in.Meaning, ch.Meaning)), ch, nil)
			mismatchAccepted(t, fin, m, in, ch)
			sr.mu.Lock()
			sr.changed = append(sr.changed, ch)
			sr.mu.Unlock()
		}
	}
}

// recordedLookup asks the lookup about the payment and records the question
// as a resolve ("did it happen?", HISTORY.md): the checker holds its answer
// to the intent's charge and earlier answers (a lookup that says failed
// of a charged payment, or names another payment, is inconsistent-answer).
func recordedLookup(ctx context.Context, e *scenario.Env, t *scenario.T, p Planned, in scenario.Intent, pay string) {
	name := e.D.Intent(in.Caller, in.Key)
	pend := e.D.Recorder.Begin(fmt.Sprintf("lookup-%s-%d", e.Cfg.Callers[in.Caller].Name, p.N), history.OpResolve, name, history.Input{})
	a := e.D.Lookup(ctx, fmt.Sprintf("chaos: intent %d lookup", p.N), in.Caller, 0, pay)
	e.Logf("  chaos #%d intent %d lookup %s -> %s", a.Seq, p.N, pay, scenario.DescribeResp(a))
	switch a.Outcome {
	case history.OutcomeSucceeded, history.OutcomeFailed, history.OutcomeProcessing, history.OutcomeVoid:
		_ = pend.End(history.Output{Outcome: a.Outcome, PaymentID: a.PaymentID})
	default:
		// An error or a transport failure says nothing about the payment.
		_ = pend.Unknown()
	}
}
