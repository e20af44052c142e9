package scenario

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/pspfront"
	"github.com/idemcheck/idemcheck/faults"
)

// Concurrent sends n copies of one request at once. Where idemcheck runs
// the PSP, the first charge request of the order is gated at the front until
// the other copies have come back (bounded), so the copies overlap by
// construction rather than by timing. gated reports whether the gate held a
// PSP request (false without a PSP).
func Concurrent(ctx context.Context, e *Env, t *T, in Intent, n int, spread bool) (out []*driver.Attempt, gated bool) {
	out = make([]*driver.Attempt, n)
	var gate interface {
		Fired() int
		Release()
	}
	switch {
	case e.Front != nil:
		g := e.Front.Add(in.Meaning.OrderID, in.Meaning.Amount, pspfront.Gate)
		// Copies that race past the service's guard reach the PSP within
		// its work before the call; half a second keeps a takeover after a
		// lease (the gate's hold outlasting it) out of double-execution.
		g.CountTogetherWithin(500 * time.Millisecond)
		defer g.Stop()
		gate = frontGate{g}
	case e.PSP != nil:
		g := ArmPSP(ctx, e, faults.PSPGate, faults.Scope{Amount: in.Meaning.Amount})
		defer g.Undo()
		gate = pspGate{g}
	}
	start := make(chan struct{})
	back := make(chan struct{}, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[i] = t.Send(ctx, fmt.Sprintf("copy %d/%d", i+1, n), in, func(s *driver.Send) {
				if spread {
					s.Instance = i
				}
			})
			back <- struct{}{}
		}()
	}
	close(start)
	if gate != nil {
		returned := 0
		deadline := time.After(min(2*time.Second, e.Cfg.TimeoutD()/2))
	wait:
		for returned < n-1 || gate.Fired() == 0 {
			select {
			case <-back:
				returned++
			case <-deadline:
				break wait
			case <-ctx.Done():
				break wait
			case <-time.After(20 * time.Millisecond):
			}
		}
		gated = gate.Fired() > 0
		if fg, ok := gate.(frontGate); ok {
			t.mu.Lock()
			t.together = max(t.together, fg.r.MaxHeld())
			t.mu.Unlock()
		}
		gate.Release()
	}
	wg.Wait()
	return out, gated
}

type frontGate struct{ r *pspfront.Rule }

func (g frontGate) Fired() int { return g.r.Fired() }

func (g frontGate) Release() { g.r.Stop() }

type pspGate struct{ f *faults.PSPInjection }

func (g pspGate) Fired() int { return int(g.f.Fired()) }

func (g pspGate) Release() { g.f.Release() }

func Summarize(atts []*driver.Attempt) string {
	counts := map[string]int{}
	var order []string
	for _, a := range atts {
		k := a.Outcome
		if a.Status != 0 {
			k = fmt.Sprintf("%d %s", a.Status, a.Outcome)
		}
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	s := ""
	for i, k := range order {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%dx %s", counts[k], k)
	}
	return s
}

func Last(atts []*driver.Attempt) *driver.Attempt {
	if len(atts) == 0 {
		return &driver.Attempt{}
	}
	return atts[len(atts)-1]
}

// Hint names the likely cause of a fault that never fired, from the answer.
func Hint(e *Env, a *driver.Attempt) string {
	if !a.Unknown() && a.Outcome == history.OutcomeError {
		return fmt.Sprintf(": does the service reject idemcheck's keys (%s)? see create.key.format", keyExample(e))
	}
	return ": is it configured with the PSP URL idemcheck printed?"
}

// NoCharge reports a fault that needed the target's PSP charge to act on
// and got none: the target's doing, not idemcheck's, so inconclusive, as
// FiredOrErr says it, with what the create was answered and why.
func NoCharge(e *Env, t *T, what string, in Intent, a *driver.Attempt) {
	why := whyNoAnswer(e, []*driver.Attempt{a}, []string{a.Intent})
	if a.PaymentID != "" && (a.Outcome == history.OutcomeSucceeded || a.Outcome == history.OutcomeFailed) {
		why = fmt.Sprintf("its create was answered %s without a charge there: is it configured with the PSP URL and key idemcheck printed?", DescribeResp(a))
	}
	t.Inconclusive(fmt.Sprintf("the fault (%s) never fired", what),
		"the target made no PSP charge of %d at fakepsp within %s; %s", in.Meaning.Amount, e.Cfg.TimeoutD(), why)
}

func FiredOrErr(t *T, f *faults.PSPInjection, what string, amount int64) bool {
	if f.Fired() == 0 {
		t.Inconclusive(fmt.Sprintf("the fault (%s) never fired", what),
			"the target made no PSP charge of %d at fakepsp; is it configured with the PSP URL and key idemcheck printed?", amount)
		return false
	}
	return true
}

func Lookup(ctx context.Context, e *Env, t *T, rs []*driver.Attempt) {
	l := Last(rs)
	if e.Cfg.Lookup == nil || l.PaymentID == "" {
		return
	}
	a := e.D.Lookup(ctx, t.Check.ID+": did it happen?", 0, 0, l.PaymentID)
	e.Logf("  %s #%d lookup %s -> %s", t.Check.ID, a.Seq, l.PaymentID, DescribeResp(a))
}

// Background sends one create and returns a channel with its attempt.
func Background(ctx context.Context, t *T, step string, in Intent, mod func(*driver.Send)) <-chan *driver.Attempt {
	ch := make(chan *driver.Attempt, 1)
	go func() { ch <- t.Send(ctx, step, in, mod) }()
	return ch
}

func WaitFired(ctx context.Context, f *faults.PSPInjection, d time.Duration) error {
	c, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return f.WaitFired(c, 1)
}

// KillOwnerAfterCharge sends in, holds the PSP's reply once the target has
// charged, SIGKILLs the owner while it waits, and restarts it. It returns the
// first attempt's answer and when the fault began; ok is false when the fault
// could not be applied (already reported on t).
func KillOwnerAfterCharge(ctx context.Context, e *Env, t *T, in Intent) (a *driver.Attempt, start int64, ok bool) {
	f := ArmPSP(ctx, e, faults.PSPHoldReply, faults.Scope{Amount: in.Meaning.Amount, Times: 1})
	defer f.Undo()
	start = history.Now()
	first := Background(ctx, t, "owner charges at the PSP, then is killed", in, nil)
	if err := WaitFired(ctx, f, e.Cfg.TimeoutD()); err != nil {
		NoCharge(e, t, "hold the PSP's reply, kill the owner", in, <-first)
		return nil, start, false
	}
	if err := e.Procs[0].Kill(); err != nil {
		t.Errorf("kill: %v", err)
	}
	f.Undo()
	a = <-first
	if err := e.Procs[0].Restart(ctx); err != nil {
		t.Errorf("restart after kill: %v", err)
		return a, start, false
	}
	if err := e.WaitReady(ctx, 0); err != nil {
		t.Errorf("target did not come back after the kill: %v", err)
		return a, start, false
	}
	return a, start, true
}

// Send sends one create for an intent and remembers the intent for judging.
func (t *T) Send(ctx context.Context, step string, in Intent, mod func(*driver.Send)) *driver.Attempt {
	s := driver.Send{Step: t.Check.ID + ": " + step, Caller: in.Caller, Meaning: in.Meaning, Key: in.Key}
	if mod != nil {
		mod(&s)
	}
	name := ""
	if s.Key != "" && !s.NoHistory {
		name = t.Env.D.Intent(s.Caller, s.Key)
		t.mu.Lock()
		t.Intents[name] = true
		t.mu.Unlock()
	}
	t.Env.track(t.Check.ID, Intent{Meaning: s.Meaning, Key: s.Key, Caller: s.Caller}, name)
	a := t.Env.D.Create(ctx, s)
	if !s.NoHistory && s.Method == "" {
		t.Env.notePaymentID(a) // a create's answer, not a vector's GET
	}
	t.Env.Logf("  %s #%d %s %s -> %s", t.Check.ID, a.Seq, step, describeReq(a), DescribeResp(a))
	return a
}

func describeReq(a *driver.Attempt) string {
	return fmt.Sprintf("%s %s (caller %s)", a.Method, a.URL, a.Caller)
}

func DescribeResp(a *driver.Attempt) string {
	if a.Err != "" {
		return "no answer: " + a.Err
	}
	s := fmt.Sprintf("%d %s", a.Status, a.Outcome)
	if a.PaymentID != "" {
		s += " " + a.PaymentID
	}
	return s
}

// Final reports whether an outcome ends a client's retries.
func Final(a *driver.Attempt) bool {
	switch a.Outcome {
	case history.OutcomeSucceeded, history.OutcomeFailed, history.OutcomeMismatch, history.OutcomeVoid:
		return true
	}
	return false
}

// RetryUntilFinal is Converge; n and wait are ignored (kept for the vectors'
// call sites): the run's converge_within and a growing backoff decide.
func (t *T) RetryUntilFinal(ctx context.Context, step string, in Intent, _ int, _ time.Duration, mod func(*driver.Send)) []*driver.Attempt {
	return t.Converge(ctx, step, in, mod)
}

// Converge resends an intent, as a client with a stable key would, with a
// growing backoff, until a final answer or converge_within; between
// attempts it asks the lookup, when configured, about the payment the
// answers named. The last answer (or the lookup's final one) is the
// intent's final answer, which the judge holds against the PSP.
func (t *T) Converge(ctx context.Context, step string, in Intent, mod func(*driver.Send)) []*driver.Attempt {
	e := t.Env
	began := time.Now()
	wait := 100 * time.Millisecond
	var out []*driver.Attempt
	var final *driver.Attempt
	paymentID := ""
	// looked is set once the lookup gave a final answer: the client then
	// resends with its key until the create path answers finally too (a
	// resend can meet a tier restarting), so the history, which holds the
	// answers to the client's creates, not the lookups, records what the
	// create path says once the outcome is known.
	looked := false
	for i := 0; ; i++ {
		label := step
		if i > 0 {
			label = fmt.Sprintf("%s (retry %d)", step, i)
		}
		a := t.Send(ctx, label, in, mod)
		out = append(out, a)
		if !looked || Final(a) {
			final = a
		}
		if a.PaymentID != "" {
			paymentID = a.PaymentID
		}
		if Final(a) || ctx.Err() != nil {
			break
		}
		if !looked && e.Cfg.Lookup != nil && paymentID != "" {
			l := e.D.Lookup(ctx, t.Check.ID+": "+step+": did it happen?", in.Caller, 0, paymentID)
			e.Logf("  %s #%d lookup %s -> %s", t.Check.ID, l.Seq, paymentID, DescribeResp(l))
			if l.Outcome == history.OutcomeSucceeded || l.Outcome == history.OutcomeFailed {
				if l.PaymentID == "" {
					l.PaymentID = paymentID
				}
				final, looked = l, true
				continue
			}
		}
		if time.Now().Add(wait).After(e.convergeAfterHarness(began)) {
			break
		}
		if t.Env.sleepFor(ctx, WaitBackoff, wait) != nil {
			return out
		}
		wait = min(wait*3/2, 2*time.Second)
	}
	t.mu.Lock()
	t.finals[t.Env.D.Intent(in.Caller, in.Key)] = final
	t.mu.Unlock()
	return out
}

func SleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
