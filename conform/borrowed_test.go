package conform

import (
	"fmt"
	"slices"
	"testing"
)

// resolveYAML gives the fixture paysvc's RESOLVE, which chaos sends before
// and beside a create, on an intent's own key and on a key another caller
// sent first.
const resolveYAML = `resolve:
  path: /payments/resolve
`

// TestBorrowedKeysReachEveryPath: a service whose create path is scoped to
// (caller, key) but whose RESOLVE looks the key up by itself answers one
// caller about another's payment. Chaos sends RESOLVE on borrowed keys too,
// so it is caught in every seed; the correct service passes.
func TestBorrowedKeysReachEveryPath(t *testing.T) {
	t.Parallel()
	cases := []struct {
		flaw  string
		seeds []uint64
	}{
		{"resolve-unscoped", seedRange(measuredSeeds(t, 5))},
		{"none", seedRange(measuredSeeds(t, 2))},
	}
	for _, tc := range cases {
		for _, seed := range tc.seeds {
			t.Run(fmt.Sprintf("%s/seed-%d", tc.flaw, seed), func(t *testing.T) {
				t.Parallel()
				f := fixture{flaw: tc.flaw, extra: resolveYAML}
				code, rep, _ := f.run(t, Options{Chaos: true, Seed: seed, Duration: 11e9, Quiet: true, ChaosFaults: []string{"psp-slow"}})
				got := kinds(rep)
				var names []string
				for k := range got {
					names = append(names, k)
				}
				slices.Sort(names)
				if tc.flaw == "none" {
					if code != ExitPass || len(got) > 0 {
						t.Fatalf("the correct service: exit %d, kinds %v; want 0 and none", code, names)
					}
					return
				}
				// RESOLVE answers the sender about another caller's key: with
				// that caller's payment (inconsistent-answer), or void of the
				// other caller's voided key while the sender's own create then
				// charges (effect-after-void). Nothing else may show.
				allowed := []string{"effect-after-void", "inconsistent-answer"}
				if code != ExitViolation || len(names) == 0 || slices.ContainsFunc(names, func(k string) bool { return !slices.Contains(allowed, k) }) {
					t.Fatalf("exit %d, kinds %v; want exit 1 with kinds among %v", code, names, allowed)
				}
			})
		}
	}
}
