package conform

import (
	"testing"
)

// TestChaosShapesCatchAUsersService: `run --chaos` against a service of
// the user's (paysvc), not the reference: the shapes its config enables
// (a JSON create, a lookup, a refund) catch the flaws that only a reordered
// retry, a retry of another amount or a repeated refund expose, each with
// its exact kind and that kind only; the correct service passes. One mild
// fault keeps the outcome a matter of the shapes, not of which faults a
// seed draws.
func TestChaosShapesCatchAUsersService(t *testing.T) {
	t.Parallel()
	cases := []struct{ flaw, kind string }{
		{"raw-fingerprint", "false-mismatch"},
		{"mismatch-accepted", "mismatch-accepted"},
		{"fresh-refund-key", "double-refund"},
		{"none", ""},
	}
	for _, tc := range cases {
		t.Run(tc.flaw, func(t *testing.T) {
			t.Parallel()
			f := fixture{flaw: tc.flaw}
			code, rep, _ := f.run(t, Options{Chaos: true, Seed: 3, Duration: 3 * 1e9, Quiet: true, ChaosFaults: []string{"psp-slow"}})
			got := kinds(rep)
			if tc.kind == "" {
				if code != ExitPass || len(got) > 0 {
					t.Fatalf("the correct service: exit %d, kinds %v; want 0 and none", code, got)
				}
				return
			}
			if code != ExitViolation || !got[tc.kind] || len(got) != 1 {
				t.Fatalf("flaw %s: exit %d, kinds %v; want exit 1 naming %s only", tc.flaw, code, got, tc.kind)
			}
		})
	}
}
