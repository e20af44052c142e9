package conform

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
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

// edit replaces old with new in a capture config, once, and fails the test
// when old is not there (the fixture config changed under the test).
func edit(old, new string) func(*testing.T, string) string {
	return func(t *testing.T, text string) string {
		t.Helper()
		if !strings.Contains(text, old) {
			t.Fatalf("the capture config has no %q", old)
		}
		return strings.Replace(text, old, new, 1)
	}
}

// partialRefund makes the refund request refund 500 of the payment's amount,
// so a second refund of the same request is not refused as "already
// refunded" and a repeated refund can move money twice.
var partialRefund = edit("refund:\n  path: /payments/{{payment_id}}/refund\n  key: {header: Idempotency-Key}\n",
	"refund:\n  path: /payments/{{payment_id}}/refund\n  key: {header: Idempotency-Key}\n  body: '{\"amount\": 500}'\n")

// S-capture against stripe-go on fakepsp: with PSP keys derived from the
// client's, every step's lost reply and concurrent copies replay at the PSP
// (one authorization, one capture, one refund). Each stripesvc flaw is one
// bug of the path and is caught with exactly its kind; each inconclusive
// path is reached by a service or config that leaves the check nothing to
// judge, and names why. S-capture names no double-capture and no
// over-refund: fakepsp refuses a second capture of one authorization and a
// refund beyond what is left (docs/SCENARIOS.md), so a second charge for one
// payment is a double-charge.
func TestCaptureCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		cfg  func(*testing.T, string) string
		kind string // the one finding's kind; "" for none
		// inconclusive is what the inconclusive verdict's reasons say; none
		// for a decided check.
		inconclusive []string
		// why is what a pass says it counted.
		why []string
	}{
		{name: "stable-keys", why: []string{"1 authorization(s)", "1 capture(s)", "1 refund(s) of 1002 for 1002 captured"}},
		{name: "stable-keys, partial refund", cfg: partialRefund, why: []string{"1 authorization(s)", "1 capture(s)", "1 refund(s) of 500 for 1002 captured"}},
		{name: "capture-fresh-key", args: []string{"--flaw", "capture-fresh-key"}, kind: checker.KindFailedButCharged},
		{name: "authorize-fresh-key", args: []string{"--flaw", "authorize-fresh-key"}, kind: checker.KindDoubleAuthorization},
		{name: "capture-recharge", args: []string{"--flaw", "capture-recharge"}, kind: checker.KindDoubleCharge},
		{name: "capture-no-psp", args: []string{"--flaw", "capture-no-psp"}, kind: checker.KindLostEffect},
		{name: "refund-no-psp", args: []string{"--flaw", "refund-no-psp"}, kind: checker.KindLostEffect},
		{name: "refund-fresh-key, partial refund", args: []string{"--flaw", "refund-fresh-key"}, cfg: partialRefund, kind: checker.KindDoubleRefund},
		{name: "authorize-captures", args: []string{"--flaw", "authorize-captures"}, inconclusive: []string{"was charged at the authorize"}},
		{name: "refund-by-cancel", args: []string{"--flaw", "refund-by-cancel"}, inconclusive: []string{"no refund reached the PSP and none was answered succeeded"}},
		{name: "authorize answered unrecognised", cfg: edit("    - {status: [200, 201], field: status, equals: authorized, outcome: succeeded}\n", ""),
			inconclusive: []string{"the authorize was not answered succeeded with a payment id"}},
		{name: "authorize without manual capture", cfg: edit(`, "capture_method": "manual"}`, "}"),
			inconclusive: []string{"no manual-capture authorization of order"}},
		{name: "authorize to no PSP", cfg: edit("authorize:\n  path: /payments\n", "authorize:\n  path: /nowhere\n"),
			inconclusive: []string{"the authorize's PSP reply was never lost"}},
		{name: "capture to no PSP", cfg: edit("capture:\n  path: /payments/{{payment_id}}/capture\n", "capture:\n  path: /payments/{{payment_id}}/nowhere\n"),
			inconclusive: []string{"the capture's PSP reply was never lost", "no capture reached the PSP and none was answered succeeded"}},
		{name: "refund to no PSP", cfg: edit("refund:\n  path: /payments/{{payment_id}}/refund\n", "refund:\n  path: /payments/{{payment_id}}/nowhere\n"),
			inconclusive: []string{"the refund's PSP reply was never lost"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			text := captureConfig(t, tc.args...)
			if tc.cfg != nil {
				text = tc.cfg(t, text)
			}
			html := filepath.Join(t.TempDir(), "report")
			code, rep, out := runText(t, text, Options{Only: []string{"S-capture"}, Quiet: true, HTML: html})
			if rep == nil {
				t.Fatalf("run did not start (exit %d)", code)
			}
			r := rep.Results[0]
			if r.ID != "S-capture" {
				t.Fatalf("first result %s, want S-capture", r.ID)
			}
			switch {
			case len(tc.inconclusive) > 0:
				if code != ExitViolation || r.Verdict != scenario.Inconclusive || len(r.Findings) > 0 {
					t.Fatalf("exit %d, S-capture: %s (%s), findings %v; want inconclusive: %v", code, r.Verdict, r.Why, kinds(rep), tc.inconclusive)
				}
				for _, w := range tc.inconclusive {
					if !strings.Contains(r.Why, w) {
						t.Errorf("S-capture's inconclusive reason does not say %q: %s", w, r.Why)
					}
				}
				return
			case tc.kind == "":
				if code != ExitPass || r.Verdict != scenario.Pass || len(r.Findings) > 0 {
					t.Fatalf("exit %d, S-capture: %s (%s), findings %v", code, r.Verdict, r.Why, kinds(rep))
				}
				for _, w := range tc.why {
					if !strings.Contains(r.Why, w) {
						t.Errorf("S-capture's why does not say %q: %s", w, r.Why)
					}
				}
				return
			}
			if code != ExitViolation || r.Verdict != scenario.Violation || len(r.Findings) != 1 || r.Findings[0].Kind != tc.kind {
				t.Fatalf("exit %d, S-capture: %s (%s), findings %v; want exactly one %s", code, r.Verdict, r.Why, kinds(rep), tc.kind)
			}
			if tc.name != "capture-fresh-key" {
				return
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
			for _, want := range []string{`"psp"`, "S-capture capture reply lost", "S-capture authorize reply lost"} {
				if !strings.Contains(string(b), want) {
					t.Errorf("the picture lacks %q", want)
				}
			}
			// The intent's currency is drawn from the seed.
			if !regexp.MustCompile(`charge 1002[a-z]{3} key`).Match(b) {
				t.Errorf("the picture lacks the capture's charge label (charge 1002 in the intent's currency)")
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
