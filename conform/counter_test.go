package conform

import (
	"fmt"
	"testing"

	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/fakepsp"
)

// With a plain counter instead of fakepsp, idemcheck judges effects by the
// counter's growth: the PSP here is the test's own, handed to the service
// through target.env as a user would hand it their sandbox.
func TestHTTPCounterEffects(t *testing.T) {
	t.Parallel()
	psp, err := fakepsp.Start(fakepsp.Config{RateLimits: fakepsp.RateLimits{Disabled: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer psp.Close()
	for _, tc := range []struct {
		flaw string
		want int
	}{{"none", ExitPass}, {"no-key", ExitViolation}} {
		f := fixture{flaw: tc.flaw,
			effects: `http_counter: {url: "http://127.0.0.1:${PORT_0}/debug/charges", field: count}`,
			env:     fmt.Sprintf("PSP_URL: %q, PSP_KEY: %q", psp.URL(), psp.SecretKey())}
		code, rep, _ := f.run(t, Options{Only: []string{"A2", "A1"}})
		if code != tc.want {
			t.Errorf("%s: exit %d, want %d", tc.flaw, code, tc.want)
		}
		for _, r := range rep.Results {
			if r.ID == "A1" && r.Verdict != scenario.NA {
				t.Errorf("A1 needs fakepsp, got %s", r.Verdict)
			}
		}
		// A counter is not the PSP's log: its growth is the service's books
		// as far as idemcheck can tell (issue 50).
		if tc.want == ExitViolation && (!kinds(rep)["double-booking"] || kinds(rep)["double-charge"]) {
			t.Errorf("%s: want double-booking (not double-charge) from the counter, got %v", tc.flaw, kinds(rep))
		}
	}
}
