package conform

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// P-conflict's verdict does not hang on a race (issue 50): the first
// copy's PSP answer is held and the second copy is sent only once the PSP
// executed the first, so a create with no idempotency layer of its own
// (paysvc --flaw no-layer: the PSP's replay reaches the duplicate as a
// 201) deviates on every seed, and the correct service answers 409 on
// every seed. Ten seeds each, every one printed.
func TestConflictVerdictIsStable(t *testing.T) {
	for _, tc := range []struct {
		flaw string
		want scenario.Verdict
		why  string // in the verdict's words
	}{
		{"no-layer", scenario.Deviation, "the concurrent duplicate got 201 succeeded while the first was held"},
		{"none", scenario.Pass, "concurrent duplicate got 409"},
	} {
		t.Run(tc.flaw, func(t *testing.T) {
			t.Parallel()
			for seed := uint64(1); seed <= 10; seed++ {
				_, rep, out := fixture{flaw: tc.flaw}.run(t, Options{Only: []string{"P-conflict"}, Seed: seed})
				i := -1
				if rep != nil {
					i = slices.IndexFunc(rep.Results, func(r scenario.Result) bool { return r.ID == "P-conflict" })
				}
				if i < 0 {
					t.Fatalf("seed %d: no P-conflict result: %s", seed, out)
				}
				r := rep.Results[i]
				text := r.Why
				for _, f := range r.Findings {
					text += " " + f.Message
				}
				t.Logf("seed %d: %s %s", seed, r.Verdict, text)
				if r.Verdict != tc.want || !strings.Contains(text, tc.why) || !strings.Contains(text, "once the PSP had executed the first copy's charge") {
					t.Errorf("seed %d: %s (%s), want %s saying %q", seed, r.Verdict, text, tc.want, tc.why)
				}
			}
		})
	}
}
