package scenario

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
)

// RunCheck runs one check and turns what it found into a Result.
func RunCheck(ctx context.Context, e *Env, c *Check) (r Result) {
	r = Result{ID: c.ID, Title: c.Title, Level: c.Level, Rule: c.Rule}
	r.Required = slices.Contains(e.Cfg.Required, c.ID)
	if e.Cfg.ConsumerOnly() && !c.WithoutCreate {
		r.Verdict, r.Why = NA, config.ConsumerOnlyWhy
		return r
	}
	if why := BrokerLacks(e, c); why != "" {
		// The broker cannot do what the check needs (Q-visibility on Kafka,
		// Q-rebalance on SQS): n/a whatever the config says.
		r.Verdict, r.Why, r.BrokerNA = NA, why, true
		return r
	}
	if why := NotApplicable(e, c); why != "" {
		r.Verdict, r.Why = NA, why
		return r
	}
	start := time.Now()
	t := &T{Check: c, Env: e, Intents: map[string]bool{}, finals: map[string]*driver.Attempt{}, start: history.Now()}
	t.first = e.D.NextSeq()
	_ = takeReadError(e)
	t.countBefore = e.Count(ctx)
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Errorf("idemcheck bug: panic: %v\n%s", p, debug.Stack())
			}
		}()
		c.Run(ctx, e, t)
	}()
	r.Elapsed = time.Since(start)
	r.Attempts = t.Attempts()
	for i := range t.Findings {
		// A finding that names no requests is about the whole check: every
		// request it sent is its evidence.
		if len(t.Findings[i].Seqs) == 0 {
			for _, a := range r.Attempts {
				t.Findings[i].Seqs = append(t.Findings[i].Seqs, a.Seq)
			}
		}
	}
	attachTruth(e, t.Findings, r.Attempts)
	truthErr := takeReadError(e)
	r.Findings, r.Coverage = t.Findings, t.Coverage
	r.History, r.Ops, r.Faults = t.History, t.ops, append(t.keptFaults, e.FaultWindows()...)
	if len(r.Ops) == 0 && len(t.Findings) > 0 {
		// A check that judged no history (a protocol vector) still gets its
		// findings pictured: its client ops as recorded.
		for _, op := range e.D.Recorder.History() {
			if t.Intents[op.Intent] && op.Call >= t.start {
				r.Ops = append(r.Ops, op)
			}
		}
	}
	r.Checker = t.checkerRes
	var safety, proto []string
	for _, f := range t.Findings {
		if f.Level == Safety {
			safety = append(safety, f.Kind+": "+f.Message)
		} else {
			proto = append(proto, f.Message)
		}
	}
	// A check that could not run, or whose preconditions failed, is never
	// hidden behind a (non-gating) protocol deviation or an n/a.
	switch {
	case truthErr != nil:
		r.Verdict, r.Why = Errored, fmt.Sprintf("the PSP's evidence could not be read (%v): no verdict stands on charges it did not see", truthErr)
		if len(safety) > 0 {
			r.Why += "; not findings: " + strings.Join(safety, "; ")
		}
	case t.broken != "":
		r.Verdict, r.Why = Errored, "the harness broke the system under test: "+t.broken
		if len(safety) > 0 {
			r.Why += "; what it saw after that is not the service's doing and is not a finding: " + strings.Join(safety, "; ")
		}
	case len(safety) > 0:
		r.Verdict, r.Why = Violation, strings.Join(safety, "; ")
	case t.err != "":
		r.Verdict, r.Why = Errored, t.err
	case ctx.Err() != nil:
		r.Verdict, r.Why = Errored, fmt.Sprintf("interrupted: %v", ctx.Err())
	case len(t.Inconc) > 0:
		r.Verdict, r.Precondition = Inconclusive, strings.Join(t.Inconc, "; ")
		r.Why = "not proven: " + r.Precondition
		if len(proto) > 0 {
			r.Why += "; also: " + strings.Join(proto, "; ")
		}
	case len(proto) > 0:
		r.Verdict, r.Why = Deviation, strings.Join(proto, "; ")
	case t.na != "":
		r.Verdict, r.Why = NA, t.na
	default:
		r.Verdict, r.Why = Pass, t.Why
		if len(t.counted) > 0 {
			r.Why += "; counted: " + strings.Join(t.counted, "; ")
		}
	}
	return r
}

// AddLate adds a finding found after the check ended (the final recount)
// and makes the result a violation.
func (r *Result) AddLate(f Finding) {
	r.Findings = append(r.Findings, f)
	if r.Verdict != Violation {
		r.Verdict, r.Why = Violation, f.Kind+": "+f.Message
		return
	}
	r.Why += "; " + f.Kind + ": " + f.Message
}
