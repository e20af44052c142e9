package conform

import (
	"slices"
	"testing"

	"github.com/idemcheck/idemcheck/conform/report"
)

// TestChaosShapesCatchAUsersService: `run --chaos` against a service of
// the user's (paysvc), not the reference: the shapes its config enables
// (a JSON create, a lookup, a refund) catch the flaws that only a reordered
// retry, a retry with one meaning field changed or a repeated refund expose, each with
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
				checkCoverage(t, rep)
				return
			}
			if code != ExitViolation || !got[tc.kind] || len(got) != 1 {
				t.Fatalf("flaw %s: exit %d, kinds %v; want exit 1 naming %s only", tc.flaw, code, got, tc.kind)
			}
		})
	}
}

// checkCoverage: a chaos run reports what it exercised of every dimension
// its config allows, each shape on both kinds of key among them.
func checkCoverage(t *testing.T, rep *report.Report) {
	t.Helper()
	for _, r := range rep.Results {
		if r.ID != "chaos" {
			continue
		}
		c := r.Coverage
		if c == nil || c.Allowed == 0 || c.Covered == 0 || c.Covered > c.Allowed {
			t.Fatalf("chaos coverage %+v", c)
		}
		var names []string
		for _, d := range c.Dimensions {
			names = append(names, d.Name)
			if d.Name == "request shape x key" && !slices.Contains(d.Allowed, "plain on borrowed key") {
				t.Errorf("shapes x keys allowed %v: two callers, so a borrowed key is allowed", d.Allowed)
			}
		}
		want := []string{"fault (fired)", "request shape (carried out)", "key", "request shape x key", "meaning field (changed alone)", "latency burst on link (held traffic)"}
		if !slices.Equal(names, want) {
			t.Errorf("coverage dimensions %v, want %v", names, want)
		}
		return
	}
	t.Fatal("no chaos result")
}
