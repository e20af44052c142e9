package conform

import (
	"fmt"
	"testing"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// TestDoubleExecutionBehindThePSPsIdempotency: two copies that both execute
// and forward the client's key reach the PSP at once; the PSP keeps one
// charge, so the money alone passes A2 and S-replicas, and the front's gate
// names the double execution. The correct service has no finding.
func TestDoubleExecutionBehindThePSPsIdempotency(t *testing.T) {
	only := []string{"A2", "S-replicas"}
	for _, c := range []struct {
		flaw string
		code int
		want string
	}{{"racy-forward-key", ExitViolation, "map[A2:[double-execution] S-replicas:[double-execution]]"}, {"none", ExitPass, "map[]"}} {
		t.Run(c.flaw, func(t *testing.T) {
			code, rep, out := fixture{flaw: c.flaw, instances: 2}.run(t, Options{Only: only})
			if rep == nil {
				t.Fatalf("no report (exit %d): %s", code, out)
			}
			got := fmt.Sprint(findingKinds(rep.Results, only))
			if code != c.code || got != c.want {
				t.Errorf("exit %d kinds %s, want %d %s\n%s", code, got, c.code, c.want, out)
			}
			for _, r := range rep.Results {
				if r.Verdict == scenario.Inconclusive || r.Verdict == scenario.Errored {
					t.Errorf("%s: %s %s", r.ID, r.Verdict, r.Why)
				}
			}
		})
	}
}
