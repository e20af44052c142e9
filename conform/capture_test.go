package conform

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// captureConfig runs stripesvc (stable PSP keys, plus args) with the
// authorize, capture and keyed refund requests of the capture check.
func captureConfig(t *testing.T, args ...string) string {
	t.Helper()
	cmd := fmt.Sprintf("%q, \"--stable-keys\"", stripesvcBin)
	for _, a := range args {
		cmd += fmt.Sprintf(", %q", a)
	}
	text := fixture{command: cmd}.configText(t)
	text = strings.Replace(text, "    - {status: [200, 201], field: status, equals: succeeded, outcome: succeeded}\n",
		"    - {status: [200, 201], field: status, equals: succeeded, outcome: succeeded}\n"+
			"    - {status: [200, 201], field: status, equals: authorized, outcome: succeeded}\n"+
			"    - {status: [200], field: status, equals: refunded, outcome: succeeded}\n", 1)
	text = strings.Replace(text, "refund:\n  path: /payments/{{payment_id}}/refund\n",
		"refund:\n  path: /payments/{{payment_id}}/refund\n  key: {header: Idempotency-Key}\n"+
			"authorize:\n  path: /payments\n  key: {header: Idempotency-Key}\n"+
			"  body: '{\"order_id\": \"{{order_id}}\", \"amount\": {{amount}}, \"currency\": \"{{currency}}\", \"payment_method\": \"{{payment_method}}\", \"capture_method\": \"manual\"}'\n"+
			"capture:\n  path: /payments/{{payment_id}}/capture\n  key: {header: Idempotency-Key}\n", 1)
	if !strings.Contains(text, "equals: authorized") || !strings.Contains(text, "capture:\n") {
		t.Fatal("the fixture config changed: the capture requests were not added")
	}
	return text
}

// S-capture against stripe-go on fakepsp: with PSP keys derived from the
// client's, every step's lost reply and concurrent copies replay at the PSP
// (one authorization, one capture, one refund); a capture that lets
// stripe-go draw a key per attempt is refused by the PSP on the client's
// retry (already captured), and the client is told the capture failed
// although the money moved.
func TestCaptureCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want int
		kind string
	}{
		{"stable-keys", nil, ExitPass, ""},
		{"capture-fresh-key", []string{"--flaw", "capture-fresh-key"}, ExitViolation, scenario.KindFailedButCharged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			html := filepath.Join(t.TempDir(), "report")
			code, rep, out := runText(t, captureConfig(t, tc.args...), Options{Only: []string{"S-capture"}, Quiet: true, HTML: html})
			if rep == nil {
				t.Fatalf("run did not start (exit %d)", code)
			}
			if code != tc.want {
				t.Errorf("exit %d, want %d", code, tc.want)
			}
			r := rep.Results[0]
			if r.ID != "S-capture" {
				t.Fatalf("first result %s, want S-capture", r.ID)
			}
			if tc.kind == "" {
				if r.Verdict != scenario.Pass || len(r.Findings) > 0 {
					t.Errorf("S-capture: %s (%s), findings %v", r.Verdict, r.Why, kinds(rep))
				}
				for _, w := range []string{"1 authorization(s)", "1 capture(s)", "1 refund(s)"} {
					if !strings.Contains(r.Why, w) {
						t.Errorf("S-capture's why does not say %q: %s", w, r.Why)
					}
				}
				return
			}
			if r.Verdict != scenario.Violation || len(r.Findings) != 1 || r.Findings[0].Kind != tc.kind {
				t.Fatalf("S-capture: %s (%s), findings %v; want exactly one %s", r.Verdict, r.Why, kinds(rep), tc.kind)
			}
			if f := r.Findings[0]; len(f.Charges) != 1 || !strings.Contains(f.Message, "capture") {
				t.Errorf("the finding does not show the one capture: %+v", f)
			}
			// The report to act on: the replay command, and the finding's
			// picture with the capture labelled and the step's fault.
			replay := "idemcheck run --config " + rep.Config + " --seed 42 --only S-capture"
			if !strings.Contains(out, "replay one failing check:\n  "+replay+"\n") {
				t.Errorf("the console lacks the replay command %q", replay)
			}
			b, err := os.ReadFile(filepath.Join(html, "S-capture", "1-failed-but-charged.html"))
			if err != nil {
				t.Fatalf("no picture of the finding: %v", err)
			}
			for _, want := range []string{`"psp"`, "charge 1002usd key", "S-capture capture reply lost", "S-capture authorize reply lost"} {
				if !strings.Contains(string(b), want) {
					t.Errorf("the picture lacks %q", want)
				}
			}
		})
	}
}

// Without a capture request the check does not apply: n/a, never a pass.
func TestCaptureCheckNeedsCapture(t *testing.T) {
	t.Parallel()
	code, rep, _ := fixture{flaw: "none"}.run(t, Options{Only: []string{"S-capture"}, Quiet: true})
	if rep == nil || len(rep.Results) == 0 {
		t.Fatalf("run did not start (exit %d)", code)
	}
	if r := rep.Results[0]; r.ID != "S-capture" || r.Verdict != scenario.NA || !strings.Contains(r.Why, "no capture request") {
		t.Errorf("%s: %s (%s), want n/a: no capture request", r.ID, r.Verdict, r.Why)
	}
}
