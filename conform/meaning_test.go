package conform

import (
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// A fingerprint that forgets any one meaning field accepts a request that
// differs only in that field: A5 and P-mismatch change each field alone, so
// each omission is caught, by name, and nothing else is reported.
func TestFingerprintMissingAFieldIsCaught(t *testing.T) {
	t.Parallel()
	for _, field := range []string{"order_id", "amount", "currency", "payment_method"} {
		t.Run(field, func(t *testing.T) {
			t.Parallel()
			f := fixture{flaw: "fingerprint-omits", args: []string{"--omit", field}}
			code, rep, _ := f.run(t, Options{Only: []string{"A5", "P-mismatch"}})
			if code != ExitViolation {
				t.Fatalf("exit %d, want 1", code)
			}
			var named, other []string
			for _, r := range rep.Results {
				for _, fd := range r.Findings {
					switch {
					case fd.Kind == "mismatch-accepted" && strings.Contains(fd.Message, "differs only in "+field+" "):
						named = append(named, r.ID)
					case fd.Level == scenario.Safety:
						other = append(other, r.ID+": "+fd.Kind+": "+fd.Message)
					}
				}
			}
			if len(named) != 1 || named[0] != "A5" {
				t.Errorf("mismatch-accepted naming %s from %v, want exactly one from A5", field, named)
			}
			if len(other) > 0 {
				t.Errorf("other safety findings:\n  %s", strings.Join(other, "\n  "))
			}
			for _, r := range rep.Results {
				if r.ID == "P-mismatch" && r.Verdict != scenario.Deviation {
					t.Errorf("P-mismatch %s (%s), want a deviation: the %s mismatch was not refused", r.Verdict, r.Why, field)
				}
			}
		})
	}
}
