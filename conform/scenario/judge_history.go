package scenario

import (
	"fmt"
	"maps"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
)

// checkHistory runs the checker over this check's client ops and the
// attributed PSP charges, and turns its violations into findings. When the
// recorder refused an op of this check's intents since it began, the history
// lacks it: the checker is not run over what is left (a pass would prove less
// than it says, a violation could be the gap's), and the check is
// inconclusive, quoting the first refusal.
func (t *T) checkHistory(truth history.History, shared map[string]bool) {
	rec := t.Env.D.Recorder
	t.mu.Lock()
	mine := maps.Clone(t.Intents)
	t.mu.Unlock()
	refused, first := rec.Refused(t.start, func(in string) bool { return mine[in] })
	var h history.History
	for _, op := range rec.History() {
		if t.Intents[op.Intent] && op.Call >= t.start {
			t.ops = append(t.ops, op)
			if !shared[op.Intent] {
				h = append(h, op)
			}
		}
	}
	h = append(h, truth...)
	t.ops = append(t.ops, truth...)
	t.History = h
	if refused > 0 {
		t.Inconclusive(fmt.Sprintf("the recorder refused %d op(s) of this check, so the history lacks them and the checker did not judge it", refused), "%v", first)
		return
	}
	if len(h) == 0 {
		return
	}
	opts := checker.CheckOptions{Timeout: 5 * time.Second, Faults: t.Env.FaultWindows()}
	res := checker.Check(h, opts)
	if refunds := t.refundsOfCharged(res, truth); len(refunds) > 0 {
		// A charge refunded in full is not failed-but-charged (HISTORY.md):
		// the checker decides again with the refunds of the charges it
		// named, so the history the report keeps says the same.
		h = append(h, refunds...)
		t.ops = append(t.ops, refunds...)
		t.History = h
		res = checker.Check(h, opts)
	}
	// An undecided partition proves nothing; an op the checker refused is a
	// piece of the story it did not see.
	for _, u := range res.Unknown {
		t.Inconclusive(fmt.Sprintf("the checker could not decide partition %s (%d ops) within its timeout", u.Name, u.Ops), "")
	}
	for _, inv := range res.Invalid {
		t.Inconclusive("the checker refused an op of the recorded history", "%s", inv)
	}
	for i := range res.Violations {
		v := res.Violations[i]
		if t.hasFinding(v.Kind, v.Intent) {
			continue
		}
		f := t.Safety(v.Kind, RuleHistory+" (checker)", "%s", v.Message)
		f.Intent, f.Violation = v.Intent, &v
		f.Seqs = seqsFor(t.Attempts(), v.Intent)
		for _, op := range v.Ops {
			if op.Op == history.OpCharge {
				f.Charges = append(f.Charges, op)
			}
		}
	}
	t.checkerRes = res
}

// refundsOfCharged are the PSP's refunds of the charges in truth of the
// intents res names failed-but-charged, each under that intent. truth holds
// the single-intent orders' charges only: the PSP's refunds are a read of
// its whole log, so they are read only when the checker found a charged
// intent whose client was not told succeeded, the one verdict a refund in
// full changes (HISTORY.md failed-but-charged), and through the refund
// cache, which keeps one read for the other judges of the round.
func (t *T) refundsOfCharged(res *checker.Result, truth history.History) history.History {
	if t.Env.PSP == nil {
		return nil
	}
	var out history.History
	done := map[string]bool{}
	for _, v := range res.Violations {
		if v.Kind != checker.KindFailedButCharged || done[v.Intent] {
			continue
		}
		done[v.Intent] = true
		var charges []history.Op
		for _, c := range truth {
			if c.Op == history.OpCharge && c.Intent == v.Intent {
				charges = append(charges, c)
			}
		}
		if len(charges) == 0 {
			continue
		}
		for _, r := range RefundsOf(t.Env, charges) {
			r.Intent = v.Intent
			if r.Input.PSPKey == "" {
				// As a charge made without a key: the checker keys refunds
				// by PSP key, and two refunds without one are two refunds.
				r.Input.PSPKey = "(no idempotency key)"
				if r.Output != nil && r.Output.RefundID != "" {
					r.Input.PSPKey += " " + r.Output.RefundID
				}
			}
			out = append(out, r)
		}
	}
	return out
}
