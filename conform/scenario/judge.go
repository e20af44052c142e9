package scenario

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/conform/driver"
)

// Rules the safety findings cite.
const (
	RuleHistory = "HISTORY.md one charge per intent"
)

// Send sends one create for an intent and remembers the intent for judging.
func (t *T) Send(ctx context.Context, step string, in Intent, mod func(*driver.Send)) *driver.Attempt {
	s := driver.Send{Step: t.check.ID + ": " + step, Caller: in.Caller, Meaning: in.Meaning, Key: in.Key}
	if mod != nil {
		mod(&s)
	}
	if s.Key != "" && !s.NoHistory {
		t.mu.Lock()
		t.intents[t.env.D.Intent(s.Caller, s.Key)] = true
		t.mu.Unlock()
	}
	a := t.env.D.Create(ctx, s)
	t.env.Logf("  %s #%d %s %s -> %s", t.check.ID, a.Seq, step, describeReq(a), describeResp(a))
	return a
}

func describeReq(a *driver.Attempt) string {
	return fmt.Sprintf("%s %s (caller %s)", a.Method, a.URL, a.Caller)
}

func describeResp(a *driver.Attempt) string {
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
	case checker.OutcomeSucceeded, checker.OutcomeFailed, checker.OutcomeMismatch, checker.OutcomeVoid:
		return true
	}
	return false
}

// RetryUntilFinal resends an intent, as a client with a stable key would,
// until a final answer or n attempts; it waits between attempts.
func (t *T) RetryUntilFinal(ctx context.Context, step string, in Intent, n int, wait time.Duration, mod func(*driver.Send)) []*driver.Attempt {
	var out []*driver.Attempt
	for i := 0; i < n; i++ {
		label := step
		if i > 0 {
			label = fmt.Sprintf("%s (retry %d)", step, i)
		}
		a := t.Send(ctx, label, in, mod)
		out = append(out, a)
		if Final(a) || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
			return out
		case <-time.After(wait):
		}
	}
	return out
}

// Judge waits for the target to go quiet, then checks the intents' effects
// and answers: at most expect charges per amount, one payment id per scope,
// and the checker's verdict over the recorded history.
func (t *T) Judge(ctx context.Context, expect map[int64]int, ins ...Intent) {
	e := t.env
	e.Settle(ctx)
	atts := t.attempts()
	byAmount := map[int64][]Intent{}
	for _, in := range ins {
		byAmount[in.Meaning.Amount] = append(byAmount[in.Meaning.Amount], in)
	}
	amounts := make([]int64, 0, len(byAmount))
	for a := range byAmount {
		amounts = append(amounts, a)
	}
	slices.Sort(amounts)
	var truth checker.History
	shared := map[string]bool{}
	total := 0
	for _, amount := range amounts {
		want := len(byAmount[amount])
		if x, set := expect[amount]; set {
			want = x
		}
		total += want
		charges, ok := e.ChargesFor(ctx, amount)
		if !ok {
			continue
		}
		sameAmount := byAmount[amount]
		if len(charges) > want {
			keys := pspKeys(charges)
			f := t.Safety(checker.KindDoubleCharge, RuleHistory+" (SCENARIOS.md "+t.check.ID+")",
				"%d PSP charges of %d for %d intent(s) %s; PSP keys %s", len(charges), amount, want, intentNames(e, sameAmount), strings.Join(keys, ", "))
			f.Amount, f.Charges, f.Intent = amount, charges, e.D.Intent(sameAmount[0].Caller, sameAmount[0].Key)
			f.Seqs = seqsFor(atts, f.Intent)
		}
		if len(sameAmount) > 1 {
			// Charges of one amount cannot be told apart by intent: these
			// intents are judged by count above, not by the checker.
			for _, in := range sameAmount {
				shared[e.D.Intent(in.Caller, in.Key)] = true
			}
		}
		if len(sameAmount) == 1 {
			intent := e.D.Intent(sameAmount[0].Caller, sameAmount[0].Key)
			for _, c := range charges {
				c.Intent = intent
				truth = append(truth, c)
			}
			for _, a := range atts {
				if a.Intent == intent && a.Outcome == checker.OutcomeFailed && len(charges) > 0 {
					f := t.Safety("failed-but-charged", "payment check: 5xx after the charge; SCENARIOS.md A7",
						"the client was told \"failed\" (attempt #%d, %d) although the PSP charged %d: the client will pay again under a new key", a.Seq, a.Status, amount)
					f.Amount, f.Charges, f.Intent, f.Seqs = amount, charges, intent, []int{a.Seq}
				}
			}
		}
	}
	if e.PSP == nil {
		t.CountDelta(ctx, t.countBefore, int64(total), intentNames(e, ins))
	}
	t.checkHistory(truth, shared)
}

// checkHistory runs the checker over this check's client ops and the
// attributed PSP charges, and turns its violations into findings.
func (t *T) checkHistory(truth checker.History, shared map[string]bool) {
	var h checker.History
	for _, op := range t.env.D.Recorder.History() {
		if t.intents[op.Intent] && !shared[op.Intent] && op.Call >= t.start {
			h = append(h, op)
		}
	}
	h = append(h, truth...)
	t.history = h
	if len(h) == 0 {
		return
	}
	res := checker.Check(h, checker.CheckOptions{Timeout: 5 * time.Second, Faults: t.env.FaultWindows()})
	for i := range res.Violations {
		v := res.Violations[i]
		if t.hasFinding(v.Kind, v.Intent) {
			continue
		}
		f := t.Safety(v.Kind, RuleHistory+" (checker)", "%s", v.Message)
		f.Intent, f.Violation = v.Intent, &v
		f.Seqs = seqsFor(t.attempts(), v.Intent)
		for _, op := range v.Ops {
			if op.Op == checker.OpCharge {
				f.Charges = append(f.Charges, op)
			}
		}
	}
	t.checkerRes = res
}

func (t *T) hasFinding(kind, intent string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, f := range t.findings {
		if f.Kind == kind && (f.Intent == intent || intent == "") {
			return true
		}
	}
	return false
}

// attempts are the copies this check sent.
func (t *T) attempts() []*driver.Attempt {
	var out []*driver.Attempt
	for _, a := range t.env.D.Attempts() {
		if a.Seq >= t.first {
			out = append(out, a)
		}
	}
	return out
}

func seqsFor(atts []*driver.Attempt, intent string) []int {
	var out []int
	for _, a := range atts {
		if a.Intent == intent {
			out = append(out, a.Seq)
		}
	}
	return out
}

func pspKeys(cs []checker.Op) []string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%q", c.Input.PSPKey))
	}
	return out
}

func intentNames(e *Env, ins []Intent) string {
	var out []string
	for _, in := range ins {
		out = append(out, e.D.Intent(in.Caller, in.Key))
	}
	return strings.Join(out, ", ")
}

// CountDelta checks a plain counter: at most want new effects since before.
func (t *T) CountDelta(ctx context.Context, before int64, want int64, what string) {
	if before < 0 {
		return
	}
	t.env.Settle(ctx)
	after := t.env.Count(ctx)
	if after-before > want {
		t.Safety(checker.KindDoubleCharge, RuleHistory+" (SCENARIOS.md "+t.check.ID+")",
			"the effect counter grew by %d for %s (at most %d expected)", after-before, what, want)
	}
}

// attachTruth puts the PSP charges of the amounts a finding's attempts sent
// beside it, so every report shows the ground truth next to the answers.
func attachTruth(e *Env, fs []Finding, atts []*driver.Attempt) {
	if e.PSP == nil {
		return
	}
	all := e.PSP.Charges()
	for i := range fs {
		f := &fs[i]
		if len(f.Charges) > 0 {
			continue
		}
		amounts := map[int64]bool{}
		if f.Amount != 0 {
			amounts[f.Amount] = true
		}
		for _, a := range atts {
			if slices.Contains(f.Seqs, a.Seq) && a.Amount != 0 {
				amounts[a.Amount] = true
			}
		}
		for _, c := range all {
			if c.Input.Amount != nil && amounts[*c.Input.Amount] {
				f.Charges = append(f.Charges, c)
			}
		}
	}
}
