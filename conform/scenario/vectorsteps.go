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

// KeepTelling is what a client does after a vector's bare retry: told
// "in progress" (or nothing), it retries until it is told the outcome, as
// a client with a stable key does, within converge_within. A key that
// "never settled" is a safety finding only at that quiescence; judged on
// the bare retry's answer alone, the claim would rest on one reply (a
// service that answers in progress for a moment after its final answer
// then tells the truth, P-stale-in-progress). mod is the bare retry's.
func KeepTelling(ctx context.Context, t *T, step string, in Intent, last *driver.Attempt, mod func(*driver.Send)) {
	if last == nil || Final(last) || ctx.Err() != nil {
		return
	}
	t.Converge(ctx, step+": told "+string(last.Outcome)+", the client retries until told the outcome", in, mod)
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

// Conflict is what ConflictRun proved: the second copy's answer and the
// order the two copies were in when the service gave it.
type Conflict struct {
	In Intent
	// Second is the concurrent copy's answer; nil when no overlap was
	// proven (t is inconclusive with the reason).
	Second *driver.Attempt
	// Waited: the service answered the second copy only once the first
	// copy's held PSP answer was let go (it waited on the first).
	Waited bool
	// Order says what was proven about the copies' order, for the verdict.
	Order string
}

// ConflictRun makes a second copy arrive while the first is provably
// executing. Where idemcheck runs the PSP, the first copy's PSP answer is
// held (only the first: the second's PSP call, if the service makes one,
// passes), and the second copy is sent only once the PSP has executed the
// first's charge; letting both copies race to the PSP together would let
// the PSP pick which one is first, and a service that leans on the PSP's
// keys would pass or deviate by luck. Without a PSP idemcheck holds, the
// two copies go together and only the service's own in-progress answer
// proves they overlapped; anything else is inconclusive.
func ConflictRun(ctx context.Context, e *Env, t *T) Conflict {
	in := e.NewIntent(0)
	if e.PSP == nil {
		return unheldConflict(ctx, e, t, in)
	}
	var wait func(context.Context) error
	var release func()
	if e.Front != nil {
		r := e.Front.Add(in.Meaning.OrderID, in.Meaning.Amount, pspfront.Hold).Once()
		defer r.Stop()
		wait, release = func(c context.Context) error { return r.WaitAnswersHeld(c, 1) }, r.Stop
	} else {
		f := ArmPSP(ctx, e, faults.PSPHoldReply, faults.Scope{Amount: in.Meaning.Amount, Times: 1})
		defer f.Undo()
		wait, release = func(c context.Context) error { return f.WaitFired(c, 1) }, func() { _ = f.Release() }
	}
	first := Background(ctx, t, "first copy (its PSP answer held)", in, nil)
	wctx, cancel := context.WithTimeout(ctx, e.Cfg.TimeoutD())
	err := wait(wctx)
	cancel()
	if err != nil {
		release()
		a := <-first
		t.Inconclusive("the first copy's charge reached the PSP before the second copy was sent",
			"the PSP executed no charge of %d for it within %s; it was answered %s%s", in.Meaning.Amount, e.Cfg.TimeoutD(), DescribeResp(a), Hint(e, a))
		return Conflict{In: in}
	}
	c := Conflict{In: in, Order: "the second copy was sent once the PSP had executed the first copy's charge, whose answer idemcheck held"}
	second := Background(ctx, t, "concurrent copy (the first's PSP answer held)", in, nil)
	// A service that makes the copy wait for the first would wait on the
	// hold: let it go after a bounded time whatever happened.
	select {
	case c.Second = <-second:
	case <-time.After(min(2*time.Second, e.Cfg.TimeoutD()/2)):
	}
	release()
	if c.Second == nil {
		c.Waited = true
		c.Second = <-second
	}
	<-first
	return c
}

// unheldConflict sends two copies together where idemcheck holds no PSP:
// nothing orders them, so only the service's own in-progress answer to one
// proves they overlapped. Two final answers may be a finished first copy
// and its correct replay: inconclusive, never a pass or a deviation.
func unheldConflict(ctx context.Context, e *Env, t *T, in Intent) Conflict {
	atts, _ := Concurrent(ctx, e, t, in, 2, false)
	for _, a := range atts {
		if a.Outcome == history.OutcomeInProgress {
			return Conflict{In: in, Second: a, Order: "idemcheck holds no PSP here: the service's own in-progress answer to one of two copies sent together shows they overlapped"}
		}
	}
	t.Inconclusive("the second copy arrived while the first was executing",
		"idemcheck holds no PSP here to keep the first copy executing, and the two copies sent together were answered %s: nothing shows they overlapped (a finished first copy's replay is a correct answer); with effects.fakepsp: true the first copy is held at the PSP", Summarize(atts))
	return Conflict{In: in}
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
