package conform

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// TestLateStoreInProgress: paysvc --flaw late-store answers 201, then
// stores the completed record --store-after later, so the retry the checks
// send right after the 201 hears 409. When a later retry is told the
// outcome, that stale "in progress" is the protocol deviation
// P-stale-in-progress and no safety finding (issue 50: S-replicas failed
// on it one run in three); when the record never lands, the client's last
// word is "in progress" on a charged payment, a safety violation at
// quiescence.
func TestLateStoreInProgress(t *testing.T) {
	only := []string{"A2", "S-replicas"}
	for _, c := range []struct {
		name  string
		args  []string
		code  int
		want  map[string]scenario.Verdict
		kinds string
	}{
		{"transient", []string{"--store-after", "700ms", "--lease", "5s"}, ExitPass,
			map[string]scenario.Verdict{"A2": scenario.Deviation, "S-replicas": scenario.Deviation}, "map[A2:[deviation] S-replicas:[deviation]]"},
		{"never", []string{"--store-after", "1h", "--lease", "1h"}, ExitViolation,
			map[string]scenario.Verdict{"A2": scenario.Violation, "S-replicas": scenario.Violation},
			"map[A2:[failed-but-charged inconsistent-answer] S-replicas:[failed-but-charged inconsistent-answer]]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, rep, out := fixture{flaw: "late-store", instances: 2, args: c.args}.run(t, Options{Only: only})
			if rep == nil {
				t.Fatalf("no report (exit %d): %s", code, out)
			}
			got := fmt.Sprint(findingKinds(rep.Results, only))
			if code != c.code || got != c.kinds {
				t.Errorf("exit %d kinds %s, want %d %s", code, got, c.code, c.kinds)
			}
			for _, r := range rep.Results {
				if w, ok := c.want[r.ID]; ok && r.Verdict != w {
					t.Errorf("%s: %s (%s), want %s", r.ID, r.Verdict, r.Why, w)
				}
				for _, f := range r.Findings {
					// The transient's deviation names its rule and the three
					// answers: the final, the stale 409, the replay.
					if f.Level == scenario.Protocol && (!strings.HasPrefix(f.Rule, "P-stale-in-progress") || len(f.Seqs) != 3) {
						t.Errorf("%s: deviation %+v, want rule P-stale-in-progress with 3 attempts", r.ID, f)
					}
				}
			}
		})
	}
}

// TestBareRetryKeepsTelling: the vectors that send a bare retry after the
// create (P-once, P-replay, P-header-case) no longer judge a key "never
// settled" on that retry's "in progress" alone: the client keeps retrying
// until told the outcome. On paysvc --flaw late-store the retry right
// after the 201 hears 409; told the outcome later, each vector is a
// deviation and no safety finding; when the record never lands, each is
// still the safety violation, now at quiescence.
func TestBareRetryKeepsTelling(t *testing.T) {
	only := []string{"P-once", "P-replay", "P-header-case"}
	for _, c := range []struct {
		name    string
		args    []string
		code    int
		verdict scenario.Verdict
		kinds   string
	}{
		{"transient", []string{"--store-after", "700ms", "--lease", "5s"}, ExitPass, scenario.Deviation, "map[P-header-case:[deviation] P-once:[deviation] P-replay:[deviation]]"},
		{"never", []string{"--store-after", "1h", "--lease", "1h"}, ExitViolation, scenario.Violation, "map[P-header-case:[deviation failed-but-charged inconsistent-answer] P-once:[failed-but-charged inconsistent-answer] P-replay:[deviation failed-but-charged inconsistent-answer]]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, rep, out := fixture{flaw: "late-store", args: c.args}.run(t, Options{Only: only})
			if rep == nil {
				t.Fatalf("no report (exit %d): %s", code, out)
			}
			kinds := findingKinds(rep.Results, only)
			for _, k := range kinds {
				slices.Sort(k) // the judge's order of its findings is not the point
			}
			got := fmt.Sprint(kinds)
			if code != c.code || got != c.kinds {
				t.Errorf("exit %d kinds %s, want %d %s", code, got, c.code, c.kinds)
			}
			for _, r := range rep.Results {
				if slices.Contains(only, r.ID) && r.Verdict != c.verdict {
					t.Errorf("%s: %s (%s), want %s", r.ID, r.Verdict, r.Why, c.verdict)
				}
			}
		})
	}
}
