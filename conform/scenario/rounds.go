package scenario

import (
	"context"
	"fmt"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
)

// Round is a fresh T for one round of a long check (a soak's chaos, judged
// window by window over one deployment): same check and target, its own
// attempts from the next seq on, its own history, judge and tallies. What it
// finds goes back to t through Absorb.
func (t *T) Round(ctx context.Context) *T {
	e := t.Env
	r := &T{Check: t.Check, Env: e, Intents: map[string]bool{}, finals: map[string]*driver.Attempt{}, start: history.Now()}
	r.first = e.D.NextSeq()
	r.countBefore = e.Count(ctx)
	return r
}

// Absorb takes round r's verdict into t under label ("round 3"), then lets
// the target's driver and recorder forget the round: a round with a finding
// keeps its evidence in t (attempts, judged history, ops, the checker's
// result), a clean one keeps nothing but its counts, read before Absorb.
// A failed precondition, an error or a broken system of any round is the
// whole check's. It reports whether the round's evidence was kept.
func (t *T) Absorb(ctx context.Context, label string, r *T) bool {
	e := t.Env
	atts := r.Attempts()
	r.mu.Lock()
	t.mu.Lock()
	for _, m := range r.Inconc {
		msg := label + ": " + m
		if !contains(t.Inconc, msg) {
			t.Inconc = append(t.Inconc, msg)
		}
	}
	if r.err != "" && t.err == "" {
		t.err = label + ": " + r.err
	}
	if r.broken != "" && t.broken == "" {
		t.broken = label + ": " + r.broken
	}
	if r.na != "" && t.na == "" {
		t.na = r.na
	}
	t.together = max(t.together, r.together)
	keep := len(r.Findings) > 0
	if keep {
		for _, f := range r.Findings {
			if len(f.Seqs) == 0 {
				// Named now: the round's attempts are about to leave the driver.
				for _, a := range atts {
					f.Seqs = append(f.Seqs, a.Seq)
				}
			}
			f.Message = label + ": " + f.Message
			t.Findings = append(t.Findings, f)
		}
		t.kept = append(t.kept, atts...)
		t.History = append(t.History, r.History...)
		t.ops = append(t.ops, r.ops...)
		for in := range r.Intents {
			t.Intents[in] = true
		}
		if r.checkerRes != nil {
			t.checkerRes = r.checkerRes
		}
	}
	t.mu.Unlock()
	r.mu.Unlock()
	// Before the round's orders go to disk: the view moves past its charges.
	e.advanceView(ctx)
	now := history.Now()
	e.D.Forget(e.D.NextSeq() - 1)
	e.D.Recorder.Forget(now)
	e.forgetJudged()
	e.absorbOrders()
	if gone := e.ForgetFaults(now); keep {
		// The kept round's pictures draw its faults.
		t.mu.Lock()
		t.keptFaults = append(t.keptFaults, gone...)
		t.mu.Unlock()
	}
	return keep
}

// RoundPartitions is how many partitions the checker decided in a round,
// for the run's sum (Partitions is the last kept round's).
func (t *T) RoundPartitions() int { return t.Partitions() }

// Evidence says what a round left in t, for the report's counts.
func (t *T) Evidence() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return fmt.Sprintf("%d attempts, %d history ops", len(t.kept), len(t.History))
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
