package bench

import (
	"strings"
	"testing"
	"time"
)

// TestVerdictRunRefusesARunThatProvedNothing: the time-to-a-verdict figure
// is only taken from a passing run that passed at least one check and
// recorded its waits; each refusal names why.
func TestVerdictRunRefusesARunThatProvedNothing(t *testing.T) {
	for _, c := range []struct{ name, json, want string }{
		{"fails", `{"exit_code":1,"results":[{"id":"A2","verdict":"violation"}],"waits":[{"reason":"settle","total_ns":1}]}`, "A2 violation"},
		{"inconclusive", `{"exit_code":0,"results":[{"id":"A1","verdict":"pass"},{"id":"A3","verdict":"inconclusive"}],"waits":[{"reason":"settle","total_ns":1}]}`, "A3 inconclusive"},
		{"all n/a", `{"exit_code":0,"results":[{"id":"A1","verdict":"n/a"}],"waits":[{"reason":"settle","total_ns":1}]}`, "passed no check"},
		{"no waits", `{"exit_code":0,"results":[{"id":"A1","verdict":"pass"}]}`, "records no waits"},
		{"not json", `{`, "JSON report"},
	} {
		if _, err := readVerdictRun([]byte(c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
	}
}

// TestVerdictRunSumsWaitsByReason: the figures are the report's own waits,
// each reason alone and all of them.
func TestVerdictRunSumsWaitsByReason(t *testing.T) {
	v, err := readVerdictRun([]byte(`{"seed":"7","exit_code":0,
		"results":[{"id":"A1","verdict":"pass"},{"id":"B4","verdict":"n/a"},{"id":"recount","verdict":"pass"}],
		"waits":[{"reason":"quiet period","total_ns":30000000000},{"reason":"settle","total_ns":5700000000}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if v.Passed != 2 || v.NA != 1 || v.Seed != "7" {
		t.Errorf("passed %d, n/a %d, seed %s", v.Passed, v.NA, v.Seed)
	}
	if v.wait("") != 35700*time.Millisecond || v.wait("quiet period") != 30*time.Second || v.wait("key window") != 0 {
		t.Errorf("waits: all %v, quiet %v, window %v", v.wait(""), v.wait("quiet period"), v.wait("key window"))
	}
	if got := v.waitsText(); got != "quiet period 30.0 s, settle 5.7 s" {
		t.Errorf("waitsText = %q", got)
	}
}
