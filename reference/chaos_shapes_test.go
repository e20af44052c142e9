package reference

import (
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/conform"
	"github.com/idemcheck/idemcheck/conform/checks"
	"github.com/idemcheck/idemcheck/conform/report"
)

// kindsOf are the finding kinds of a run, with how many findings each.
func kindsOf(rep *report.Report) map[string]int {
	kinds := map[string]int{}
	if rep != nil {
		for _, r := range rep.Results {
			for _, f := range r.Findings {
				kinds[f.Kind]++
			}
		}
	}
	return kinds
}

// TestFullStackChaosShapesCatchMeaningMutants: switches that chaos passed
// before it drew request shapes (its retries only ever resent the same
// bytes, and it never asked RESOLVE) are caught under chaos with their
// documented kinds: a reordered retry refused by a fingerprint of the raw
// bytes, a retry of another amount accepted without a fingerprint check, a
// create charged after a RESOLVE that voided nothing or whose VOID
// overwrote the create's claim, a partial refund carried out twice. One
// mild fault (psp-slow) keeps the runs short; the shapes do the catching.
func TestFullStackChaosShapesCatchMeaningMutants(t *testing.T) {
	cases := []struct{ mutant, kind string }{
		{"fingerprint-raw-bytes", "false-mismatch"},
		{"no-fingerprint-check", "mismatch-accepted"},
		// RESOLVE answers void and stores nothing: the create after it charges.
		{"resolve-read-only", "effect-after-void"},
		// RESOLVE writes VOID over the claim of the create that raced into
		// its window, which charges anyway.
		{"non-atomic-resolve", "effect-after-void"},
		// The resolver retries the partial refund whose reply was lost under
		// a fresh key; the PSP has room for a second part.
		{"fresh-refund-key", "double-refund"},
	}
	for _, tc := range cases {
		t.Run(tc.mutant, func(t *testing.T) {
			code, rep := chaosRun(t, 3, 6*time.Second, Stack{Mutants: tc.mutant}, []string{"psp-slow"})
			kinds := kindsOf(rep)
			if code != conform.ExitViolation || kinds[tc.kind] == 0 {
				t.Fatalf("mutant %s: exit %d, kinds %v; want exit 1 naming %s", tc.mutant, code, kinds, tc.kind)
			}
			for k := range kinds {
				if k != tc.kind {
					t.Errorf("mutant %s: also named %s (%d findings): a shape made a finding the switch does not explain", tc.mutant, k, kinds[k])
				}
			}
		})
	}
}

// expectShapes: every shape the reference config enables was drawn, the
// one it cannot draw is named with its reason, and the verdict names the
// shapes carried out: with no switch, a changed amount is expected to be
// refused, a reordered retry to replay, a refund repeated or copied to
// refund once, and the run has no finding (expectPass).
func expectShapes(t *testing.T, rep *report.Report) {
	t.Helper()
	sched := strings.Join(rep.Schedule, "\n")
	for _, s := range []string{checks.ShapeReordered, checks.ShapeChangedMeaning, checks.ShapeLookup,
		checks.ShapeRefundFull, checks.ShapeRefundRepeat, checks.ShapeRefundConcurrent, checks.ShapeLateRetry, checks.ShapePauseRetry,
		checks.ShapeResolveFirst, checks.ShapeResolveRace, checks.ShapeRefundPartial} {
		if !strings.Contains(sched, "shape "+s) {
			t.Errorf("the schedule never drew %s", s)
		}
	}
	if !strings.Contains(sched, "volatile-retry not drawn: no create.volatile_fields in the config") {
		t.Errorf("the schedule does not say why volatile-retry was not drawn:\n%s", sched)
	}
	why := ""
	for _, r := range rep.Results {
		if r.ID == "chaos" {
			why = r.Why
		}
	}
	if !strings.Contains(why, "shapes carried out: ") || !strings.Contains(why, "refund-full") || !strings.Contains(why, checks.ShapeResolveFirst) {
		t.Errorf("the verdict does not name the shapes carried out: %s", why)
	}
}
