package conform

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// fakepsp's search is eventually consistent in a run, as Stripe's: a service
// that settles a PSP 5xx by searching once and reading "not found" as "not
// charged" tells the buyer failed while the card was charged. With search
// made read-after-write (kinder than Stripe) the same service passes, which
// shows the lag is what catches it.
func TestSearchOnceIsCaughtOnlyWithTheLag(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, effects string
		code          int
		kinds         []string
	}{
		// The checker also holds the answer "failed" to the charge it saw.
		{"default lag", "", ExitViolation, []string{"failed-but-charged", "inconsistent-answer"}},
		{"read-after-write", "fakepsp: true\n  search_lag: 0s", ExitPass, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := fixture{flaw: "search-once", effects: tc.effects}
			code, rep, _ := f.run(t, Options{Only: []string{"S-5xx-after-charge"}})
			if code != tc.code {
				t.Fatalf("exit %d, want %d", code, tc.code)
			}
			var got []string
			for _, r := range rep.Results {
				for _, fd := range r.Findings {
					if fd.Level == scenario.Safety && !slices.Contains(got, fd.Kind) {
						got = append(got, fd.Kind)
					}
				}
				if r.ID == "S-5xx-after-charge" && tc.code == ExitPass && r.Verdict != scenario.Pass {
					t.Errorf("S-5xx-after-charge %s: %s", r.Verdict, r.Why)
				}
			}
			if !slices.Equal(got, tc.kinds) {
				t.Errorf("safety kinds %v, want %v", got, tc.kinds)
			}
			if len(rep.PSP) != 1 || strings.Contains(rep.PSP[0], "reads its own writes") != (tc.effects != "") {
				t.Errorf("the report's psp_behaviour %q does not say how search behaved", rep.PSP)
			}
		})
	}
}
