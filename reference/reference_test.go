package reference

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/conform"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/targets/tier"
)

// Run with: flock /tmp/idemcheck-realservers.lock go test ./reference/
func TestMain(m *testing.M) {
	tier.Dispatch()
	code := m.Run()
	stopShared()
	os.Exit(code)
}

func run(t *testing.T, mutants string, only []string) (int, string, []scenario.Result) {
	return runStack(t, Stack{Mutants: mutants}, only)
}

func runStack(t *testing.T, sk Stack, only []string) (int, string, []scenario.Result) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	code, rep := RunStack(ctx, conform.Options{Seed: 7, Stdout: &out, Stderr: &errb, Only: only, HTML: t.TempDir()}, sk)
	t.Logf("stack %+v exit %d\n%s", sk, code, out.String())
	if code != 0 || testing.Verbose() {
		t.Logf("stderr:\n%s", errb.String())
	}
	if rep == nil {
		return code, out.String(), nil
	}
	return code, out.String(), rep.Results
}

func TestReferencePassesEveryApplicableCheck(t *testing.T) {
	code, _, results := run(t, "", nil)
	for _, r := range results {
		if r.Verdict != scenario.Pass && r.Verdict != scenario.NA {
			t.Errorf("%s %s: %s", r.ID, r.Verdict, r.Why)
		}
		// The webhook tier is the config's handler: every W check applies.
		if strings.HasPrefix(r.ID, "W-") && r.Verdict != scenario.Pass {
			t.Errorf("%s against the reference's webhook tier: %s %s", r.ID, r.Verdict, r.Why)
		}
	}
	if code != conform.ExitPass {
		t.Fatalf("exit %d, want %d", code, conform.ExitPass)
	}
}

func TestMutantFailsWithViolationNamedAndHTMLPath(t *testing.T) {
	// A6 is the check the switch breaks; the whole run is
	// TestReferencePassesEveryApplicableCheck's.
	code, out, _ := run(t, "key-not-scoped", []string{"A6"})
	if code != conform.ExitViolation {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.Contains(out, "inconsistent-answer") || !strings.Contains(out, "HTML report: ") {
		t.Fatalf("output lacks the violation kind or the HTML path:\n%s", out)
	}
}

// Every guard a black box can observe: its mutant must be caught by the
// checks that exercise it, with the named kind. check-then-insert and
// complete-unconditional are left out: the derived PSP key and the answers
// rendered from the ledger row mask them from any history (the reference
// suite catches them by the tiers' own counters, see suites/reference A2, A4).
func TestMutantsCaughtByTheirScenario(t *testing.T) {
	cases := []struct {
		mutant     string
		noResolver bool
		only       []string
		kind       string
	}{
		{"takeover-new-psp-key", true, []string{"A3"}, "double-charge"},
		{"fingerprint-raw-bytes", false, []string{"A5"}, "false-mismatch"},
		{"no-fingerprint-check", false, []string{"A5"}, "mismatch-accepted"},
		{"resolver-fresh-psp-key", false, []string{"A1"}, "double-charge"},
		{"no-durable-guard-random-id", false, []string{"B4"}, "double-charge"},
		{"read-path-trusts-presence", false, []string{"B5"}, "inconsistent-answer"},
		{"resolver-replay-only", false, []string{"S-5xx-after-charge"}, "failed-but-charged"},
	}
	for _, tc := range cases {
		t.Run(tc.mutant, func(t *testing.T) {
			code, out, results := runStack(t, Stack{Mutants: tc.mutant, NoResolver: tc.noResolver}, tc.only)
			kinds := map[string]bool{}
			for _, r := range results {
				for _, f := range r.Findings {
					kinds[f.Kind] = true
				}
			}
			if code != conform.ExitViolation {
				t.Errorf("exit %d, want 1: the mutant was not caught\n%s", code, out)
			}
			if !kinds[tc.kind] {
				t.Errorf("want %s, got %v", tc.kind, kinds)
			}
		})
	}
}

// blind-webhook-update moves the payment and writes its journal entries on
// every delivery: each check that delivers an event twice, to the tier
// whose process it kills too, sees exactly a double credit.
func TestBlindWebhookCaughtByTheWebhookChecks(t *testing.T) {
	only := []string{"W-dup", "W-kill"}
	code, out, results := run(t, "blind-webhook-update", only)
	if code != conform.ExitViolation {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	for _, r := range results {
		if r.ID == "recount" {
			continue
		}
		var kinds []string
		for _, f := range r.Findings {
			if !slices.Contains(kinds, f.Kind) {
				kinds = append(kinds, f.Kind)
			}
		}
		if !slices.Equal(kinds, []string{"double-credit"}) {
			t.Errorf("%s: kinds %v, want exactly [double-credit]: %s", r.ID, kinds, r.Why)
		}
	}
}

// The embedded config a user reads as the best example parses as is.
func TestEmbeddedConfigParses(t *testing.T) {
	c, err := Config([]string{"http://127.0.0.1:1", "http://127.0.0.1:2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Target.BaseURLs) != 2 || c.ConvergeD() <= 0 || c.QuiesceD() <= 0 || c.Create.Key.Format != "uuid" {
		t.Fatalf("config not filled: %+v", c.Target)
	}
	if c.Webhook != nil || c.Ledger != nil {
		t.Fatalf("without a webhook tier the config must have no webhook section: %+v", c.Webhook)
	}
	w, err := configWithWebhook([]string{"http://127.0.0.1:1"}, "http://127.0.0.1:3/webhooks/psp", "postgres://127.0.0.1:4/x", false)
	if err != nil {
		t.Fatal(err)
	}
	if w.Webhook == nil || w.Webhook.URL != "http://127.0.0.1:3/webhooks/psp" || w.Ledger.Credits == nil || w.Ledger.Credits.DSN != "postgres://127.0.0.1:4/x" {
		t.Fatalf("webhook section not filled: %+v %+v", w.Webhook, w.Ledger)
	}
}
