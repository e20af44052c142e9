package conform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// pspLink puts a Toxiproxy link between the service and fakepsp.
const pspLink = "toxiproxy:\n  links:\n    - {name: PSP, upstream: fakepsp}\n"

func TestCorrectServicePassesEveryCheck(t *testing.T) {
	t.Parallel()
	f := fixture{flaw: "none", instances: 2, env: `PSP_URL: "http://${PSP_ADDR}"`, extra: pspLink + webhookYAML}
	dir := t.TempDir()
	code, rep, _ := f.run(t, Options{Strict: true, JSON: filepath.Join(dir, "r.json"), JUnit: filepath.Join(dir, "r.xml"), HTML: filepath.Join(dir, "html")})
	if rep == nil {
		t.Fatalf("run did not start (exit %d)", code)
	}
	for _, v := range []scenario.Verdict{scenario.Violation, scenario.Deviation, scenario.Errored} {
		if got := verdicts(rep, v); len(got) > 0 {
			t.Errorf("%s against the correct service:\n  %s", v, strings.Join(got, "\n  "))
		}
	}
	if code != ExitPass {
		t.Fatalf("exit %d, want 0", code)
	}
	var na []string
	for _, r := range rep.Results {
		if r.Verdict == scenario.NA {
			na = append(na, r.ID)
		}
	}
	// Only profile-dependent vectors may be n/a for this config, S-capture
	// (paysvc has no capture: stripesvc's is run in capture_test.go) and the
	// queue checks (paysvc consumes no topic: creditsvc's in consumer_test.go).
	for _, id := range na {
		if id != "P-5xx-stored" && id != "S-capture" && !strings.HasPrefix(id, "Q-") {
			t.Errorf("check %s was n/a against a fully controllable target", id)
		}
	}
	for _, p := range []string{"r.json", "r.xml", "html/index.html"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("report %s not written: %v", p, err)
		}
	}
}

func TestBrokenServicesAreCaught(t *testing.T) {
	t.Parallel()
	cases := []struct {
		f    fixture
		only []string
		kind string
	}{
		{fixture{flaw: "no-key"}, []string{"A2", "P-missing-key"}, "double-charge"},
		{fixture{flaw: "check-then-insert"}, []string{"A2"}, "double-charge"},
		{fixture{flaw: "raw-fingerprint"}, []string{"A5"}, "false-mismatch"},
		{fixture{flaw: "unscoped"}, []string{"A6"}, "inconsistent-answer"},
		{fixture{flaw: "memory-store"}, []string{"S-restart"}, "double-charge"},
		{fixture{flaw: "short-ttl", ttl: "300ms", window: "10s", horizon: "1s"}, []string{"B4"}, "double-charge"},
		{fixture{flaw: "mismatch-accepted"}, []string{"A5"}, "mismatch-accepted"},
		{fixture{flaw: "reexec-after-5xx"}, []string{"S-5xx-after-charge"}, "double-charge"},
		{fixture{flaw: "new-psp-key"}, []string{"A1"}, "double-charge"},
		{fixture{flaw: "fresh-refund-key"}, []string{"S-multistep"}, "double-refund"},
		{fixture{flaw: "new-psp-key", env: `PSP_URL: "http://${PSP_ADDR}"`, extra: pspLink}, []string{"S-deps"}, "double-charge"},
		// A correct service whose documented window is shorter than the horizon.
		{fixture{flaw: "none", window: "500ms", horizon: "1s"}, []string{"B4"}, "key-window-short"},
	}
	for _, tc := range cases {
		t.Run(tc.f.flaw+"/"+tc.kind, func(t *testing.T) {
			t.Parallel()
			code, rep, _ := tc.f.run(t, Options{Only: tc.only})
			if code != ExitViolation {
				t.Errorf("exit %d, want 1", code)
			}
			if !kinds(rep)[tc.kind] {
				t.Errorf("want a %s finding, got %v", tc.kind, kinds(rep))
			}
		})
	}
}

func TestProtocolOnlyDeviationsGateOnlyWhenStrict(t *testing.T) {
	t.Parallel()
	f := fixture{flaw: "protocol-only"}
	only := []string{"A2", "A5", "P-conflict", "P-mismatch"}
	code, rep, _ := f.run(t, Options{Only: only})
	if code != ExitPass {
		t.Errorf("default exit %d, want 0 (protocol deviations only)", code)
	}
	if v := verdicts(rep, scenario.Violation); len(v) > 0 {
		t.Errorf("safety violations for a safe service: %v", v)
	}
	dev := verdicts(rep, scenario.Deviation)
	if len(dev) != 2 || !strings.HasPrefix(dev[0], "P-mismatch") || !strings.HasPrefix(dev[1], "P-conflict") {
		t.Errorf("deviations %v, want P-conflict and P-mismatch", dev)
	}
	code, _, _ = f.run(t, Options{Only: only, Strict: true})
	if code != ExitViolation {
		t.Errorf("--strict exit %d, want 1", code)
	}
	f.extra = "required: [P-conflict]\n"
	code, rep, _ = f.run(t, Options{Only: []string{"P-conflict", "P-mismatch"}})
	if code != ExitViolation {
		t.Errorf("exit %d with P-conflict required, want 1", code)
	}
	for _, r := range rep.Results {
		if r.ID == "P-conflict" && !r.Required {
			t.Errorf("P-conflict not marked required in the report")
		}
	}
}

// The same correct service judged by the Stripe-style profile: its 422 on a
// mismatch is a deviation there (Stripe answers 400 idempotency_error).
func TestStripeProfile(t *testing.T) {
	t.Parallel()
	f := fixture{flaw: "none", profile: "stripe"}
	code, rep, _ := f.run(t, Options{Only: []string{"P-mismatch", "P-replay-header", "P-problem-json", "P-quoted-key"}})
	if code != ExitPass {
		t.Errorf("exit %d, want 0 (deviations do not gate by default)", code)
	}
	got := map[string]scenario.Verdict{}
	for _, r := range rep.Results {
		got[r.ID] = r.Verdict
	}
	want := map[string]scenario.Verdict{"P-mismatch": scenario.Deviation, "P-replay-header": scenario.Pass,
		"P-problem-json": scenario.NA, "P-quoted-key": scenario.NA}
	for id, v := range want {
		if got[id] != v {
			t.Errorf("%s: %s, want %s", id, got[id], v)
		}
	}
}
