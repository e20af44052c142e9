package conform

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/report"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// ledgerCfg reads paysvc's own ledger of one order.
const ledgerCfg = "ledger: {url: \"http://127.0.0.1:${PORT_0}/ledger?order_id={{order_id}}\", list: data}\n"

// safetyIDs are the safety checks a one-instance paysvc can run.
var safetyIDs = []string{"A2", "A5", "A6", "A1", "S-5xx-after-charge", "A7", "S-restart", "A3", "B5", "S-multistep"}

func safetyFindings(rep *report.Report) []string {
	var out []string
	for _, r := range rep.Results {
		for _, f := range r.Findings {
			if f.Level == scenario.Safety {
				out = append(out, r.ID+" "+f.Kind+": "+f.Message)
			}
		}
	}
	return out
}

// Services that do it right in ways a naive harness flags: each must get
// no safety finding and exit 0.
func TestCorrectServicesGetNoSafetyFinding(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		f    fixture
	}{
		// A UUID-only key validator, fully exercised by the default keys.
		{"uuid-only-keys", fixture{flaw: "none", args: []string{"--key-length", "36"}, extra: ledgerCfg}},
		// Duplicates block on the key and get the replay: no 409 ever.
		{"lock-and-replay", fixture{flaw: "none", args: []string{"--dup", "wait"}}},
		// The fingerprint covers the whole parsed body.
		{"whole-body-fingerprint", fixture{flaw: "none", args: []string{"--fingerprint", "body"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, rep, _ := tc.f.run(t, Options{Only: safetyIDs, Quiet: true})
			if rep == nil {
				t.Fatalf("run did not start (exit %d)", code)
			}
			if got := safetyFindings(rep); len(got) > 0 {
				t.Errorf("safety findings against a correct service:\n  %s", strings.Join(got, "\n  "))
			}
			for _, r := range rep.Results {
				if r.Verdict != scenario.Pass {
					t.Errorf("%s: %s (%s)", r.ID, r.Verdict, r.Why)
				}
			}
			if code != ExitPass {
				t.Errorf("exit %d, want 0", code)
			}
		})
	}
}

// A service that answers 500 to every keyed request idemcheck sends (its
// keys are not the 36 characters it accepts) can never exit 0: the probe
// says so first, and every check that sent a create is inconclusive.
func TestRejectedKeysNeverPass(t *testing.T) {
	t.Parallel()
	f := fixture{flaw: "none", args: []string{"--key-length", "36"}}
	text := strings.Replace(f.configText(t), "key: {header: Idempotency-Key}", "key: {header: Idempotency-Key, format: random, prefix: idem_, length: 24}", 1)
	// Every keyed request is refused whatever the client does: retrying one
	// for the fixture's 6 s proves no more than retrying it for 1 s (the
	// spec asserts the verdicts and the probe's words, not the retries).
	text = strings.Replace(text, "converge_within: 6s", "converge_within: 1s", 1)
	if !strings.Contains(text, "converge_within: 1s") {
		t.Fatalf("the fixture's config has no converge_within: 6s to shorten:\n%s", text)
	}
	code, rep, out := runText(t, text, Options{Only: []string{"A2", "A6", "S-restart", "A1"}})
	if code != ExitViolation {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.Contains(rep.Probe, "create.key.format") || !strings.Contains(out, "PROBE: ") {
		t.Errorf("the probe did not name the rejected keys: %q", rep.Probe)
	}
	for _, r := range rep.Results {
		if r.ID == "recount" {
			continue
		}
		if r.Verdict != scenario.Inconclusive || !strings.Contains(r.Precondition, "create.key.format") {
			t.Errorf("%s: %s (%s), want inconclusive naming create.key.format", r.ID, r.Verdict, r.Why)
		}
	}
}

func TestRealWorldFlawsAreCaught(t *testing.T) {
	t.Parallel()
	tag := "idemcheck-test-sh-" + strconv.Itoa(os.Getpid())
	sh := fmt.Sprintf(`"sh", "-c", "%s --flaw memory-store --hold 100ms --lease 1s --tag %s; exit $?"`, paysvcBin, tag)
	cases := []struct {
		name string
		f    fixture
		only []string
		kind string
		// check is the result that must carry the finding.
		check string
	}{
		{"forward-key-ledger", fixture{flaw: "forward-key", extra: ledgerCfg}, []string{"S-restart"}, "double-booking", "S-restart"},
		{"stripe-go-fresh-key", fixture{command: fmt.Sprintf("%q", stripesvcBin)}, []string{"A1"}, "double-charge", "A1"},
		{"fee-added", fixture{flaw: "fee"}, []string{"A2"}, "wrong-amount", "A2"},
		{"sh-wrapper-restart", fixture{command: sh}, []string{"S-restart"}, "double-charge", "S-restart"},
		{"sh-wrapper-kill", fixture{command: sh}, []string{"A3"}, "double-charge", "A3"},
		{"5xx-replayed-forever", fixture{flaw: "store-5xx"}, []string{"S-5xx-after-charge"}, "failed-but-charged", "S-5xx-after-charge"},
		{"late-sweeper", fixture{flaw: "sweeper", args: []string{"--sweep-after", "2s"}, quiesce: "4s"}, []string{"A2"}, "double-charge", "A2"},
		{"ledger-lacks-the-charge", fixture{flaw: "none", args: []string{"--no-ledger"}, extra: ledgerCfg}, []string{"A2"}, "ledger-missing", "A2"},
		{"raw-fingerprint-417", fixture{flaw: "raw-fingerprint", args: []string{"--mismatch-status", "417"}}, []string{"A5"}, "false-mismatch", "A5"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, rep, _ := tc.f.run(t, Options{Only: tc.only, Quiet: true})
			if code != ExitViolation {
				t.Errorf("exit %d, want 1", code)
			}
			found := false
			for _, r := range rep.Results {
				for _, f := range r.Findings {
					found = found || (r.ID == tc.check && f.Kind == tc.kind)
				}
			}
			if !found {
				t.Errorf("want a %s finding on %s, got %v", tc.kind, tc.check, kinds(rep))
			}
			// The PSP deduplicated the forwarded key: one charge of the card,
			// so nothing may say double-charge (issue 50).
			if tc.kind == "double-booking" && kinds(rep)["double-charge"] {
				t.Errorf("double-charge named while the PSP charged once: %v", kinds(rep))
			}
		})
	}
	t.Cleanup(func() {
		// Nothing the sh -c runs started may outlive them.
		if pids := processesWith(tag); len(pids) > 0 {
			t.Errorf("processes left running after the sh -c runs: %v", pids)
		}
	})
}

// processesWith lists live processes whose command line contains s.
func processesWith(s string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), s) && alive(e.Name()) {
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

func alive(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// A5 changes only the fields the config declares volatile: a service that
// fingerprints the payment's meaning takes such a retry; one that
// fingerprints the whole body refuses it, which is a false mismatch for a
// client whose retries change that field.
func TestVolatileFields(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{{"meaning-fingerprint", nil, ExitPass}, {"whole-body-fingerprint", []string{"--fingerprint", "body"}, ExitViolation}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := fixture{flaw: "none", args: tc.args}
			text := strings.Replace(f.configText(t), "  key: {header: Idempotency-Key}\n", "  key: {header: Idempotency-Key}\n  volatile_fields: [client_sent_at]\n", 1)
			code, rep, _ := runText(t, text, Options{Only: []string{"A5"}, Quiet: true})
			if code != tc.want {
				t.Errorf("exit %d, want %d", code, tc.want)
			}
			a5 := rep.Results[0]
			if !strings.Contains(a5.Why, "[client_sent_at] changed") && tc.want == ExitPass {
				t.Errorf("A5 does not say it sent the volatile retry: %s", a5.Why)
			}
			if tc.want == ExitViolation && !kinds(rep)["false-mismatch"] {
				t.Errorf("want false-mismatch, got %v", kinds(rep))
			}
		})
	}
}
