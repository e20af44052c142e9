package scenario

import (
	"fmt"
	"slices"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
)

// RuleStaleInProgress is what a stale "in progress" answer breaks
// (docs/SCENARIOS.md#P-stale-in-progress).
const RuleStaleInProgress = "P-stale-in-progress: a key whose outcome was answered replays it (draft-ietf-httpapi-idempotency-key-header §2.6)"

// judgeStaleInProgress names the protocol deviation of an "in progress"
// answer to a retry sent after the intent's final answer came back, when a
// later retry of the same request was told the outcome: the service sent
// its answer before it stored it (the checker's model lets an in_progress
// constrain nothing, so this is no safety finding). A request never told
// the outcome again is the checker's inconsistent-answer at quiescence.
func (t *T) judgeStaleInProgress(atts []*driver.Attempt) {
	var names []string
	for _, a := range atts {
		if a.Intent != "" && !slices.Contains(names, a.Intent) {
			names = append(names, a.Intent)
		}
	}
	for _, n := range names {
		var mine []*driver.Attempt
		var final *driver.Attempt
		for _, a := range atts {
			if a.Intent != n || a.Unknown() {
				continue
			}
			mine = append(mine, a)
			if settles(a) && (final == nil || a.Return < final.Return) {
				final = a
			}
		}
		if final == nil {
			continue
		}
		if stale, told := staleThenTold(mine, final); stale != nil {
			f := t.Deviation(RuleStaleInProgress,
				"key %s was answered %s (#%d), then %s to a retry sent after that answer came back (#%d, %s later), then %s again (#%d): the service answers before it stores its completed record, so a retry in that moment hears \"in progress\" for a finished payment",
				keyOf(n), final.Outcome, final.Seq, history.OutcomeInProgress, stale.Seq, msSince(final.Return, stale.Call), told.Outcome, told.Seq)
			f.Intent, f.Seqs = n, []int{final.Seq, stale.Seq, told.Seq}
		}
	}
}

func settles(a *driver.Attempt) bool {
	return a.Outcome == history.OutcomeSucceeded || a.Outcome == history.OutcomeFailed
}

// staleThenTold finds an in_progress answer to a retry of final's request
// sent after final came back, and the first answer after it that told the
// outcome; nil when there is none.
func staleThenTold(mine []*driver.Attempt, final *driver.Attempt) (stale, told *driver.Attempt) {
	for _, a := range mine {
		if a.Outcome != history.OutcomeInProgress || a.Call <= final.Return || a.Amount != final.Amount {
			continue
		}
		for _, b := range mine {
			if settles(b) && b.Amount == a.Amount && b.Call >= a.Return && (told == nil || b.Call < told.Call) {
				told = b
			}
		}
		if told != nil {
			return a, told
		}
	}
	return nil, nil
}

func msSince(from, to int64) string {
	return fmt.Sprintf("%dms", (to-from)/1e6)
}
