package checks

import (
	"context"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/faults"
)

// The resolve shapes send the config's RESOLVE ("did it happen?" of a key,
// SCENARIOS.md B1-B3) about the intent's own key: before its create, so a
// service must void the key and answer its create void, never charge it;
// or at the same moment as its create, so exactly one of them may win: a
// RESOLVE answered void of a key whose create then charged is
// effect-after-void. The question is recorded as a resolve op of the
// intent, which the checker holds to its charge and its other answers.
const (
	ShapeResolveFirst = "resolve-before-create"
	ShapeResolveRace  = "resolve-races-create"
)

// isResolveShape says whether a shape sends RESOLVE.
func isResolveShape(s string) bool { return s == ShapeResolveFirst || s == ShapeResolveRace }

// resolveOff says why the config cannot be sent RESOLVE ("" when it can).
func resolveOff(e *scenario.Env) string {
	if e.Cfg.Resolve == nil {
		return "no resolve request in the config"
	}
	return ""
}

// resolveSlots moves the resolve shapes onto intents without a fault: a
// voided intent never reaches the PSP, so its fault could not fire. The
// shape goes to the next intent without a fault that sends a key of the same
// kind (its own, or one borrowed from another caller: there RESOLVE asks
// about the sender's own key, and a service that scopes RESOLVE by less
// than caller and key answers about the other caller's payment), trading
// shapes with it; the other fields stay as drawn, but for one copy: RESOLVE
// is the shape's race, and a second copy meeting the first's claim would
// answer in_progress after a void, a second kind for one bug (copies race
// each other in the other shapes).
func resolveSlots(out []Planned) {
	for i := range out {
		if !isResolveShape(out[i].Shape) || out[i].Fault == NoFault {
			continue
		}
		borrowed := out[i].KeyOf != 0
		k := i + 1
		for k < len(out) && (out[k].Fault != NoFault || (out[k].KeyOf != 0) != borrowed || isResolveShape(out[k].Shape)) {
			k++
		}
		if k == len(out) {
			out[i].Shape, out[i].Stretch = ShapePlain, 0
			continue
		}
		out[i].Shape, out[k].Shape = out[k].Shape, out[i].Shape
		out[i].Stretch, out[k].Stretch = out[k].Stretch, out[i].Stretch
	}
	for i := range out {
		if isResolveShape(out[i].Shape) {
			out[i].Copies = 1
		}
	}
}

// resolveFirst sends the resolve-before-create shape's RESOLVE and waits
// for its answer; nil for every other shape.
func resolveFirst(ctx context.Context, e *scenario.Env, p Planned, in scenario.Intent) *driver.Attempt {
	if p.Shape != ShapeResolveFirst {
		return nil
	}
	return recordedResolve(ctx, e, p, in, "before the create")
}

// resolveHoldPoint is where a tier holds RESOLVE between its read of the
// key (absent) and its write of VOID, when the tier declares the point
// (the reference API does): the window a concurrent create races into.
const resolveHoldPoint = "before-resolve-commit"

// resolveHold and resolveLead open that window: RESOLVE is held at the
// point for resolveHold, and the copies go resolveLead after it, so they
// claim the key while RESOLVE has read it absent and not yet written.
const (
	resolveHold = 150 * time.Millisecond
	resolveLead = 30 * time.Millisecond
)

// resolveRace starts the resolve-races-create shape's RESOLVE beside the
// copies and returns what waits for its answer; nil for every other shape.
// Where the target's tiers declare the hold point, RESOLVE is held there
// and goes first, so the create claims inside its window; elsewhere the two
// race as sent.
func resolveRace(ctx context.Context, e *scenario.Env, p Planned, in scenario.Intent) func() *driver.Attempt {
	if p.Shape != ShapeResolveRace {
		return nil
	}
	held := holdResolve(e)
	done := make(chan *driver.Attempt, 1)
	go func() { done <- recordedResolve(ctx, e, p, in, "beside the create") }()
	if len(held) > 0 {
		_ = scenario.SleepCtx(ctx, resolveLead)
	}
	return func() *driver.Attempt {
		r := <-done
		fired := int64(0)
		for _, fp := range held {
			n, _ := fp.Fired()
			fired += n
			_ = fp.Undo()
		}
		if len(held) > 0 {
			e.Logf("  chaos: intent %d: RESOLVE held %s at %s on %d tier(s), fired %d time(s)", p.N, resolveHold, resolveHoldPoint, len(held), fired)
		}
		return r
	}
}

// holdResolve arms the hold point once on every API tier that declares it
// (a tier that does not refuses the point, and is left alone).
func holdResolve(e *scenario.Env) []faults.Failpoint {
	var held []faults.Failpoint
	for _, tr := range e.Tiers {
		if tr.Kind != "api" || tr.AdminURL() == "" {
			continue
		}
		fp := faults.FailpointAt(tr.AdminURL(), resolveHoldPoint)
		if fp.Arm("1*sleep("+resolveHold.String()+")") == nil {
			held = append(held, fp)
		}
	}
	return held
}

// recordedResolve sends RESOLVE for the intent's key and records it as a
// resolve op of the intent: an error or a lost answer says nothing about
// the key, so it is unknown.
func recordedResolve(ctx context.Context, e *scenario.Env, p Planned, in scenario.Intent, when string) *driver.Attempt {
	name := e.D.Intent(in.Caller, in.Key)
	pend := e.D.Recorder.Begin(fmt.Sprintf("resolve-%s-%d", e.Cfg.Callers[in.Caller].Name, p.N), history.OpResolve, name, history.Input{})
	a := e.D.Resolve(ctx, fmt.Sprintf("chaos: intent %d resolve %s", p.N, when), in.Caller, 0, in.Key)
	e.Logf("  chaos #%d intent %d resolve %s -> %s", a.Seq, p.N, when, scenario.DescribeResp(a))
	switch a.Outcome {
	case history.OutcomeSucceeded, history.OutcomeFailed, history.OutcomeProcessing, history.OutcomeVoid, history.OutcomeInProgress:
		if a.PaymentID != "" {
			pend.SetPaymentID(a.PaymentID)
		}
		_ = pend.End(history.Output{Outcome: a.Outcome, PaymentID: a.PaymentID})
	default:
		_ = pend.Unknown()
	}
	return a
}

// resolveDone says why a resolve shape did not happen ("" when it did):
// RESOLVE must have had an answer, and the racing one must have been in
// flight while a copy of the create was.
func resolveDone(p Planned, r *driver.Attempt, copies []*driver.Attempt) string {
	switch {
	case r == nil:
		return "RESOLVE was not sent"
	case r.Unknown() || r.Outcome == history.OutcomeError:
		return "RESOLVE had no answer: " + scenario.DescribeResp(r)
	case p.Shape == ShapeResolveFirst:
		return ""
	}
	for _, a := range copies {
		if a != nil && a.Call < r.Return && r.Call < a.Return {
			return ""
		}
	}
	return "every copy of the create was answered before RESOLVE was sent, or sent after its answer"
}
