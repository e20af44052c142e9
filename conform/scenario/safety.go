package scenario

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/fakepsp"
)

func needPSP(e *Env) string {
	if e.PSP == nil {
		return "needs effects.fakepsp: the fault is injected at the PSP"
	}
	return ""
}

func needProcs(e *Env) string {
	if len(e.Procs) == 0 {
		return "needs target.command: idemcheck must own the process"
	}
	return ""
}

func needAll(fs ...func(*Env) string) func(*Env) string {
	return func(e *Env) string {
		for _, f := range fs {
			if why := f(e); why != "" {
				return why
			}
		}
		return ""
	}
}

func needCallers(e *Env) string {
	if len(e.Cfg.Callers) < 2 {
		return "needs two callers in the config"
	}
	return ""
}

func needReplicas(e *Env) string {
	if len(e.D.Bases()) < 2 {
		return "needs two instances (target.instances or two base_urls)"
	}
	return ""
}

// SafetyChecks are the black-box scenarios and the payment-only checks.
func SafetyChecks() []*Check {
	return []*Check{
		{ID: "A2", Title: "N concurrent copies of one request", Level: Safety, Rule: "SCENARIOS.md A2", Run: runA2},
		{ID: "A5", Title: "mismatch; reordered fields plus an extra field", Level: Safety, Rule: "SCENARIOS.md A5", Run: runA5},
		{ID: "A6", Title: "one key from two callers (same and different bodies)", Level: Safety, Rule: "SCENARIOS.md A6; payment check: cross-caller", Needs: needCallers, Run: runA6},
		{ID: "A1", Title: "PSP charges, its reply is lost", Level: Safety, Rule: "SCENARIOS.md A1; payment check: stable downstream key", Needs: needPSP, Run: runA1},
		{ID: "S-5xx-after-charge", Title: "PSP charges, then answers 500", Level: Safety, Rule: "payment check: 5xx after the charge", Needs: needPSP, Run: run5xxAfterCharge},
		{ID: "A7", Title: "the client's own reply lost (Toxiproxy)", Level: Safety, Rule: "SCENARIOS.md A7", Run: runA7},
		{ID: "S-restart", Title: "restart between the first attempt and the retry", Level: Safety, Rule: "payment check: restart", Needs: needProcs, Run: runRestart},
		{ID: "A3", Title: "owner SIGKILLed while its PSP call is in flight", Level: Safety, Rule: "SCENARIOS.md A3; payment check: stable key across restart", Needs: needAll(needPSP, needProcs), Run: runA3},
		{ID: "A4", Title: "owner frozen (SIGSTOP), another instance takes over", Level: Safety, Rule: "SCENARIOS.md A4; payment check: takeover", Needs: needAll(needPSP, needProcs, needReplicas), Run: runA4},
		{ID: "S-replicas", Title: "duplicates to two instances at once", Level: Safety, Rule: "payment check: replicas", Needs: needReplicas, Run: runReplicas},
		B5Check(),
		DepsCheck(),
		MultiStepCheck(),
		{ID: "B4", Title: "retry at the retry horizon; key window against the horizon", Level: Safety, Rule: "SCENARIOS.md B4; payment check: key lifetime", Needs: needHorizon, Run: runB4},
	}
}

// concurrent sends n copies of one request at once. Where idemcheck runs
// the PSP, the owner's charge is gated until the other copies have come back
// (bounded), so the copies overlap by construction rather than by timing.
func concurrent(ctx context.Context, e *Env, t *T, in Intent, n int, spread bool) []*driver.Attempt {
	out := make([]*driver.Attempt, n)
	var gate *fakepsp.Fault
	if e.PSP != nil {
		gate = e.PSP.Faults().GateBeforeCharge(fakepsp.Match{Amount: in.Meaning.Amount})
		defer gate.Remove()
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
		gate.Release()
	}
	wg.Wait()
	return out
}

func runA2(ctx context.Context, e *Env, t *T) {
	in := e.NewIntent(0)
	atts := concurrent(ctx, e, t, in, e.Cfg.Concurrency, false)
	t.RetryUntilFinal(ctx, "retry after the copies", in, 20, 150*time.Millisecond, nil)
	t.Judge(ctx, nil, in)
	t.Passf("%d copies: %s; one charge", len(atts), summarize(atts))
}

func runReplicas(ctx context.Context, e *Env, t *T) {
	in := e.NewIntent(0)
	atts := concurrent(ctx, e, t, in, max(4, len(e.D.Bases())*2), true)
	t.RetryUntilFinal(ctx, "retry after the copies", in, 20, 150*time.Millisecond, nil)
	t.Judge(ctx, nil, in)
	t.Passf("%d copies over %d instances: %s; one charge", len(atts), len(e.D.Bases()), summarize(atts))
}

func summarize(atts []*driver.Attempt) string {
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

func last(atts []*driver.Attempt) *driver.Attempt {
	if len(atts) == 0 {
		return &driver.Attempt{}
	}
	return atts[len(atts)-1]
}

func runA5(ctx context.Context, e *Env, t *T) {
	mm := e.Cfg.Proto().MismatchStatus
	in := e.NewIntent(0)
	first := last(t.RetryUntilFinal(ctx, "original", in, 10, 150*time.Millisecond, nil))
	changed := in
	changed.Meaning.Amount = e.NewIntent(0).Meaning.Amount
	m := t.Send(ctx, "same key, amount changed", changed, nil)
	if m.Outcome == checker.OutcomeSucceeded || m.Outcome == checker.OutcomeProcessing {
		f := t.Safety(checker.KindMismatchAccepted, "SCENARIOS.md A5; HISTORY.md mismatch",
			"the key first used for amount %d was accepted for amount %d: answered %d %s %s", in.Meaning.Amount, changed.Meaning.Amount, m.Status, m.Outcome, m.PaymentID)
		f.Intent, f.Seqs = m.Intent, []int{first.Seq, m.Seq}
	}
	r := t.Send(ctx, "same request, fields reordered plus an extra field", in, func(s *driver.Send) { s.Reorder = true })
	if r.Outcome == checker.OutcomeMismatch || r.Status == mm {
		f := t.Safety(checker.KindFalseMismatch, "SCENARIOS.md A5 (fingerprint over meaning, not bytes)",
			"a true retry with reordered JSON members and an extra client field was rejected as a mismatch (%d)", r.Status)
		f.Intent, f.Seqs = r.Intent, []int{first.Seq, r.Seq}
	}
	t.Judge(ctx, nil, in) // settles first
	if cs, ok := e.ChargesFor(ctx, changed.Meaning.Amount); ok && len(cs) > 0 && !t.hasFinding(checker.KindMismatchAccepted, m.Intent) {
		f := t.Safety(checker.KindMismatchAccepted, "SCENARIOS.md A5", "the mismatched request (amount %d) was charged", changed.Meaning.Amount)
		f.Charges, f.Intent = cs, m.Intent
	}
	t.Passf("mismatch answered %d %s; reordered retry answered %d %s", m.Status, m.Outcome, r.Status, r.Outcome)
}

func runA6(ctx context.Context, e *Env, t *T) {
	// Different bodies under one key.
	in1 := e.NewIntent(0)
	in2 := e.NewIntent(1)
	in2.Key = in1.Key
	a1 := last(t.RetryUntilFinal(ctx, e.Cfg.Callers[0].Name+" uses the key", in1, 10, 150*time.Millisecond, nil))
	a2 := last(t.RetryUntilFinal(ctx, e.Cfg.Callers[1].Name+" uses the same key, another body", in2, 10, 150*time.Millisecond, nil))
	crossed(t, a1, a2)
	if a2.Outcome == checker.OutcomeMismatch {
		f := t.Safety(checker.KindInconsistentAnswer, "SCENARIOS.md A6 (keys scoped to the caller)",
			"%s's first use of the key was answered as a mismatch with %s's request: keys are not scoped to the caller", a2.Caller, a1.Caller)
		f.Intent, f.Seqs = a2.Intent, []int{a1.Seq, a2.Seq}
	}
	// The same body under one key.
	in3 := e.NewIntent(0)
	in4 := in3
	in4.Caller = 1
	b1 := last(t.RetryUntilFinal(ctx, e.Cfg.Callers[0].Name+" uses a key", in3, 10, 150*time.Millisecond, nil))
	b2 := last(t.RetryUntilFinal(ctx, e.Cfg.Callers[1].Name+" uses the same key and body", in4, 10, 150*time.Millisecond, nil))
	crossed(t, b1, b2)
	t.Judge(ctx, nil, in1, in2, in3, in4)
	t.Passf("each caller got its own payment (%s / %s; %s / %s)", a1.PaymentID, a2.PaymentID, b1.PaymentID, b2.PaymentID)
}

func crossed(t *T, a, b *driver.Attempt) {
	if a.PaymentID != "" && a.PaymentID == b.PaymentID {
		f := t.Safety(checker.KindInconsistentAnswer, "SCENARIOS.md A6 (keys scoped to the caller)",
			"%s received %s's answer: payment %s", b.Caller, a.Caller, a.PaymentID)
		f.Intent, f.Seqs = b.Intent, []int{a.Seq, b.Seq}
	}
}

func firedOrErr(t *T, f *fakepsp.Fault, what string, amount int64) bool {
	if f.Fired() == 0 {
		t.Errorf("the fault (%s) never fired: the target made no PSP charge of %d at fakepsp; is it configured with the PSP URL and key idemcheck printed?", what, amount)
		return false
	}
	return true
}

func runA1(ctx context.Context, e *Env, t *T) {
	in := e.NewIntent(0)
	f := e.PSP.Faults().LoseReplyAfterCharge(fakepsp.Match{Amount: in.Meaning.Amount, Times: 1})
	defer f.Remove()
	start := checker.Now()
	a := t.Send(ctx, "PSP charges and its reply is lost", in, nil)
	e.NoteFault("A1 psp reply lost", start, checker.Now())
	if !firedOrErr(t, f, "PSP reply lost", in.Meaning.Amount) {
		return
	}
	rs := t.RetryUntilFinal(ctx, "client retries", in, 20, 200*time.Millisecond, nil)
	lookup(ctx, e, t, rs)
	t.Judge(ctx, nil, in)
	t.Passf("first answer %s, final %s; one charge", describeResp(a), describeResp(last(rs)))
}

func lookup(ctx context.Context, e *Env, t *T, rs []*driver.Attempt) {
	l := last(rs)
	if e.Cfg.Lookup == nil || l.PaymentID == "" {
		return
	}
	a := e.D.Lookup(ctx, t.check.ID+": did it happen?", 0, 0, l.PaymentID)
	e.Logf("  %s #%d lookup %s -> %s", t.check.ID, a.Seq, l.PaymentID, describeResp(a))
}

func run5xxAfterCharge(ctx context.Context, e *Env, t *T) {
	in := e.NewIntent(0)
	f := e.PSP.Faults().Error500AfterCharge(fakepsp.Match{Amount: in.Meaning.Amount, Times: 1})
	defer f.Remove()
	start := checker.Now()
	a := t.Send(ctx, "PSP charges, then answers 500", in, nil)
	e.NoteFault("PSP 500 after charge", start, checker.Now())
	if !firedOrErr(t, f, "PSP 500 after charge", in.Meaning.Amount) {
		return
	}
	rs := t.RetryUntilFinal(ctx, "client retries", in, 6, 200*time.Millisecond, nil)
	t.Judge(ctx, nil, in)
	t.Passf("first answer %s, final %s; one charge", describeResp(a), describeResp(last(rs)))
}

func runA7(ctx context.Context, e *Env, t *T) {
	tp, err := e.Proxy()
	if err != nil {
		t.Errorf("start Toxiproxy: %v", err)
		return
	}
	u, err := url.Parse(e.D.Bases()[0])
	if err != nil || u.Scheme != "http" {
		t.NotApplicable("the first base URL is not plain http, Toxiproxy cannot cut its replies")
		return
	}
	in := e.NewIntent(0)
	l, err := tp.Link(fmt.Sprintf("a7-%d", in.Meaning.Amount), u.Host)
	if err != nil {
		t.Errorf("Toxiproxy link to %s: %v", u.Host, err)
		return
	}
	undo, err := l.LoseReply()
	if err != nil {
		t.Errorf("Toxiproxy lose reply: %v", err)
		return
	}
	start := checker.Now()
	a := t.Send(ctx, "request reaches the target, its reply is lost", in, func(s *driver.Send) { s.Via = "http://" + l.Addr() })
	_ = undo()
	e.NoteFault("A7 client reply lost", start, checker.Now())
	if l.Fired() == 0 || !a.Unknown() {
		t.Errorf("the lost-reply fault did not take effect (fired %d, answer %s)", l.Fired(), describeResp(a))
		return
	}
	rs := t.RetryUntilFinal(ctx, "client retries directly", in, 20, 200*time.Millisecond, nil)
	lookup(ctx, e, t, rs)
	t.Judge(ctx, nil, in)
	t.Passf("lost reply, then %s; one charge", describeResp(last(rs)))
}

func runRestart(ctx context.Context, e *Env, t *T) {
	in := e.NewIntent(0)
	a := last(t.RetryUntilFinal(ctx, "first attempt", in, 10, 150*time.Millisecond, nil))
	start := checker.Now()
	if err := e.Procs[0].Restart(); err != nil {
		t.Errorf("restart: %v", err)
		return
	}
	if err := e.WaitReady(ctx, 0); err != nil {
		t.Errorf("target did not come back after restart: %v", err)
		return
	}
	e.NoteFault("restart", start, checker.Now())
	b := last(t.RetryUntilFinal(ctx, "retry after restart", in, 10, 150*time.Millisecond, nil))
	if a.PaymentID != "" && b.PaymentID != "" && a.PaymentID != b.PaymentID {
		f := t.Safety(checker.KindInconsistentAnswer, "payment check: restart", "payment %s before the restart, %s after, for one key", a.PaymentID, b.PaymentID)
		f.Intent, f.Seqs = a.Intent, []int{a.Seq, b.Seq}
	}
	t.Judge(ctx, nil, in)
	t.Passf("before restart %s, after %s; one charge", describeResp(a), describeResp(b))
}

// background sends one create and returns a channel with its attempt.
func background(ctx context.Context, t *T, step string, in Intent, mod func(*driver.Send)) <-chan *driver.Attempt {
	ch := make(chan *driver.Attempt, 1)
	go func() { ch <- t.Send(ctx, step, in, mod) }()
	return ch
}

func waitFired(ctx context.Context, f *fakepsp.Fault, d time.Duration) error {
	c, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return f.WaitFired(c, 1)
}

// killOwnerAfterCharge sends in, holds the PSP's reply once the target has
// charged, SIGKILLs the owner while it waits, and restarts it. It returns the
// first attempt's answer and when the fault began; ok is false when the fault
// could not be applied (already reported on t).
func killOwnerAfterCharge(ctx context.Context, e *Env, t *T, in Intent) (a *driver.Attempt, start int64, ok bool) {
	f := e.PSP.Faults().HoldReplyAfterCharge(fakepsp.Match{Amount: in.Meaning.Amount, Times: 1})
	defer f.Remove()
	start = checker.Now()
	first := background(ctx, t, "owner charges at the PSP, then is killed", in, nil)
	if err := waitFired(ctx, f, e.Cfg.TimeoutD()); err != nil {
		t.Errorf("the target made no PSP charge of %d: %v", in.Meaning.Amount, err)
		<-first
		return nil, start, false
	}
	if err := e.Procs[0].Kill(); err != nil {
		t.Errorf("kill: %v", err)
	}
	f.Remove()
	a = <-first
	if err := e.Procs[0].Restart(); err != nil {
		t.Errorf("restart after kill: %v", err)
		return a, start, false
	}
	if err := e.WaitReady(ctx, 0); err != nil {
		t.Errorf("target did not come back after the kill: %v", err)
		return a, start, false
	}
	return a, start, true
}

func runA3(ctx context.Context, e *Env, t *T) {
	in := e.NewIntent(0)
	a, start, ok := killOwnerAfterCharge(ctx, e, t, in)
	if !ok {
		return
	}
	e.NoteFault("A3 owner killed", start, checker.Now())
	rs := t.RetryUntilFinal(ctx, "client retries after the owner died", in, 60, 250*time.Millisecond, nil)
	t.Judge(ctx, nil, in)
	t.Passf("owner killed (%s), then %s; one charge", describeResp(a), describeResp(last(rs)))
}

func runA4(ctx context.Context, e *Env, t *T) {
	in := e.NewIntent(0)
	f := e.PSP.Faults().HoldReplyAfterCharge(fakepsp.Match{Amount: in.Meaning.Amount, Times: 1})
	defer f.Remove()
	start := checker.Now()
	first := background(ctx, t, "owner on instance 0 charges at the PSP, then is frozen", in, func(s *driver.Send) { s.Timeout = 4 * e.Cfg.TimeoutD() })
	if err := waitFired(ctx, f, e.Cfg.TimeoutD()); err != nil {
		t.Errorf("the target made no PSP charge of %d: %v", in.Meaning.Amount, err)
		<-first
		return
	}
	if err := e.Procs[0].Pause(); err != nil {
		t.Errorf("pause: %v", err)
		return
	}
	f.Release() // the PSP's answer now waits in the frozen owner's socket
	rs := t.RetryUntilFinal(ctx, "retry on instance 1 while the owner is frozen", in, 60, 250*time.Millisecond,
		func(s *driver.Send) { s.Instance = 1 })
	if err := e.Procs[0].Resume(); err != nil {
		t.Errorf("resume: %v", err)
	}
	e.NoteFault("A4 owner frozen", start, checker.Now())
	z := <-first
	after := t.Send(ctx, "read the answer once more on instance 1", in, func(s *driver.Send) { s.Instance = 1 })
	t.Judge(ctx, nil, in)
	t.Passf("takeover answered %s; the zombie answered %s; later %s", describeResp(last(rs)), describeResp(z), describeResp(after))
}

func needHorizon(e *Env) string {
	if h := e.Cfg.RetryHorizonD(); !e.CanWait(h) {
		return fmt.Sprintf("retry_horizon %s is longer than --max-wait %s (set a short horizon for a test deployment)", h, e.MaxWait)
	}
	return ""
}

func runB4(ctx context.Context, e *Env, t *T) {
	h, w := e.Cfg.RetryHorizonD(), e.Cfg.KeyWindowD()
	if w > 0 && w < h {
		t.Safety("key-window-short", "payment check: key lifetime against the retry horizon",
			"the documented key window %s is shorter than the clients' retry horizon %s: a late retry is a new payment", w, h)
	}
	in := e.NewIntent(0)
	a := last(t.RetryUntilFinal(ctx, "first attempt", in, 10, 150*time.Millisecond, nil))
	if err := e.Wait(ctx, h); err != nil {
		t.Errorf("%v", err)
		return
	}
	b := last(t.RetryUntilFinal(ctx, fmt.Sprintf("retry at the horizon (%s later)", h), in, 10, 150*time.Millisecond, nil))
	t.Judge(ctx, nil, in)
	t.Passf("retry %s after %s answered %s; one charge", h, describeResp(a), describeResp(b))
}
