package scenario

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/pspfront"
	"github.com/idemcheck/idemcheck/faults"
)

func SendUntilFinal(ctx context.Context, t *T, step string, in Intent, mod func(*driver.Send)) *driver.Attempt {
	return Last(t.RetryUntilFinal(ctx, step, in, 10, 150*time.Millisecond, mod))
}

// Created reports whether a, a protocol vector's create, is a real answer
// to a real create: final (succeeded, or failed as a decline) and naming a
// payment. What the vector then replays or refuses stands on it; when it
// is not (a 404 of a path the service lacks, an error, no answer), the
// vector is inconclusive with the reason, never a pass.
func Created(e *Env, t *T, a *driver.Attempt) bool {
	if a != nil && a.PaymentID != "" && (a.Outcome == history.OutcomeSucceeded || a.Outcome == history.OutcomeFailed) {
		return true
	}
	if a == nil {
		t.Inconclusive("the vector's create was answered with a payment", "no create was sent")
		return false
	}
	t.Inconclusive("the vector's create was answered with a payment", "%s", whyNoAnswer(e, []*driver.Attempt{a}, []string{a.Intent}))
	return false
}

// Unserved makes a vector inconclusive when a, the answer it would judge,
// is a 404 or 405: the service lacks the path or method, and its answer
// says nothing of the request the vector sent. It reports whether it did.
func Unserved(e *Env, t *T, what string, a *driver.Attempt) bool {
	if !NotServed(a) {
		return false
	}
	t.Inconclusive(fmt.Sprintf("%s reached a handler of %s %s", what, a.Method, e.Cfg.Create.Path),
		"it was answered %d (%s): a path or method the service does not serve; check create.method and create.path", a.Status, Clip(a.RespBody))
	return true
}

func Clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

func MismatchOK(e *Env, a *driver.Attempt) string {
	p := e.Cfg.Proto()
	if a.Status != p.MismatchStatus {
		return fmt.Sprintf("answered %d, profile %s expects %d", a.Status, p.Name, p.MismatchStatus)
	}
	if p.MismatchCode != "" && !strings.Contains(a.RespBody, p.MismatchCode) {
		return fmt.Sprintf("body lacks %q", p.MismatchCode)
	}
	return ""
}

// ConflictRun makes a second copy arrive while the first is executing and
// returns the answers that were not the owner's. Where idemcheck runs the
// PSP, the first copy is held at the PSP until the second has its answer.
func ConflictRun(ctx context.Context, e *Env, t *T) (in Intent, others []*driver.Attempt) {
	in = e.NewIntent(0)
	if e.PSP == nil {
		atts, _ := Concurrent(ctx, e, t, in, 2, false)
		for _, a := range atts {
			if !Final(a) {
				return in, []*driver.Attempt{a}
			}
		}
		return in, atts[1:]
	}
	var gate interface {
		Fired() int
		Release()
	}
	var wait func(context.Context) error
	if e.Front != nil {
		g := e.Front.Add(in.Meaning.OrderID, in.Meaning.Amount, pspfront.Gate)
		defer g.Stop()
		gate, wait = frontGate{g}, func(c context.Context) error { return g.WaitFired(c, 1) }
	} else {
		g := ArmPSP(ctx, e, faults.PSPGate, faults.Scope{Amount: in.Meaning.Amount})
		defer g.Undo()
		gate, wait = pspGate{g}, func(c context.Context) error { return g.WaitFired(c, 1) }
	}
	first := Background(ctx, t, "first copy (held at the PSP)", in, nil)
	wctx, cancel := context.WithTimeout(ctx, e.Cfg.TimeoutD())
	err := wait(wctx)
	cancel()
	if err != nil {
		gate.Release()
		a := <-first
		t.Inconclusive("the first copy never reached the PSP", "it was answered %s%s", DescribeResp(a), Hint(e, a))
		return in, nil
	}
	// A target that makes the copy wait for the first would wait on the
	// gate: release it after a bounded time whatever happened.
	second := Background(ctx, t, "concurrent copy", in, nil)
	var b *driver.Attempt
	select {
	case b = <-second:
	case <-time.After(min(2*time.Second, e.Cfg.TimeoutD()/2)):
	}
	gate.Release()
	if b == nil {
		b = <-second
	}
	<-first
	return in, []*driver.Attempt{b}
}

func KeyRejected(ctx context.Context, e *Env, t *T, step string, mod func(*driver.Send)) {
	in := e.NewIntent(0)
	before, _ := e.ChargesFor(ctx, in)
	a := t.Send(ctx, step, in, func(s *driver.Send) { s.NoHistory = true; mod(s) })
	if Unserved(e, t, "the "+step+" request", a) {
		return
	}
	want := e.Cfg.Proto().MissingKeyStatus
	if a.Status != want {
		t.Deviation(t.Check.Rule, "%s: answered %d %s, expected %d", step, a.Status, a.Outcome, want)
	}
	e.Settle(ctx)
	if after, ok := e.ChargesFor(ctx, in); ok && len(after) > len(before) {
		t.Deviation(t.Check.Rule, "%s: the request was executed (PSP charged %d)", step, in.Meaning.Amount)
	}
	t.Passf("%s answered %d", step, a.Status)
}

func SameReplay(e *Env, t *T, what string, a, b *driver.Attempt) {
	if b.PaymentID != a.PaymentID || b.Status != a.Status {
		t.Deviation(t.Check.Rule, "%s answered %d %s, the plain key %d %s", what, b.Status, b.PaymentID, a.Status, a.PaymentID)
	}
}

func FakePSP500(in Intent) faults.Scope { return faults.Scope{Amount: in.Meaning.Amount, Times: 1} }
