package checker

import (
	"fmt"
	"sort"

	"github.com/idemcheck/idemcheck/checker/history"
)

// staleInProgress is the quiescence rule for "in progress": the intent
// model lets an in_progress answer follow the final one (a middleware that
// stores its completed record just after answering says it for a moment,
// and the next retry hears the truth), but a request whose last answer is
// in_progress, asked after the intent's final answer was heard, was never
// told again what became of it: a client that waits for the key to settle
// waits forever. Requests are told apart by fingerprint (a resolve is its
// own request); a later mismatch, processing or final answer to the same
// request settles it, an error answer (which says nothing) does not.
func staleInProgress(h history.History, l *links) []Violation {
	answers := l.ids.group(h, func(op *history.Op) bool {
		return (op.Op == history.OpCreate || op.Op == history.OpResolve) && op.Return != nil && op.Output != nil
	})
	var vs []Violation
	for id, ops := range answers {
		final := -1 // the earliest-returning final answer
		for _, i := range ops {
			o := h[i].Output.Outcome
			if (o == history.OutcomeSucceeded || o == history.OutcomeFailed) && (final < 0 || *h[i].Return < *h[final].Return) {
				final = i
			}
		}
		if final < 0 {
			continue
		}
		last := map[string]int{} // request -> its latest-returning answer that says something
		for _, i := range ops {
			if h[i].Output.Outcome == history.OutcomeError {
				continue
			}
			req := "resolve"
			if h[i].Op == history.OpCreate {
				req = "create " + h[i].Input.Fingerprint
			}
			if j, ok := last[req]; !ok || *h[i].Return > *h[j].Return {
				last[req] = i
			}
		}
		var reqs []string
		for r := range last {
			reqs = append(reqs, r)
		}
		sort.Strings(reqs)
		for _, r := range reqs {
			i := last[r]
			if h[i].Output.Outcome != history.OutcomeInProgress || h[i].Call <= *h[final].Return {
				continue
			}
			vs = append(vs, Violation{
				Kind: KindInconsistentAnswer, Intent: l.ids.names[id], Ops: opsAt(h, []int{final, i}),
				Message: fmt.Sprintf("intent %s: answered %q at %d, then its last %s (called at %d) still answered \"in_progress\", and no later answer told it the outcome: the key never settled for that client",
					l.ids.names[id], h[final].Output.Outcome, *h[final].Return, h[i].Op, h[i].Call),
			})
		}
	}
	return vs
}
