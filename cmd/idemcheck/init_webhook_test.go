package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestProbedWebhookConfig: init --probe --webhook --credits writes the
// webhook section and the credits read from what it saw; unedited, it
// passes every W check on the correct handler and catches a handler with
// no dedup as a double credit.
func TestProbedWebhookConfig(t *testing.T) {
	t.Parallel()
	paysvc, _ := services(t)
	only := "W-dup,W-concurrent,W-lost-ack,W-kill,W-order,W-early,W-forged"
	for _, c := range []struct {
		flaw  string
		shape string // of GET /credits: {"data": [...]} or {"count": n, "entries": [...]}
		code  int
		kinds string
	}{{"none", "data", 0, "map[]"}, {"no-dedup", "data", 1, "map[W-concurrent:double-credit W-dup:double-credit W-kill:double-credit W-lost-ack:double-credit W-order:double-credit]"},
		// issue 50: a receiver whose credits are {"entries": [...]} works unedited.
		{"none", "entries", 0, "map[]"}} {
		t.Run(c.flaw+"-"+c.shape, func(t *testing.T) {
			t.Parallel()
			cfg := probeInit(t, "--probe", "http://127.0.0.1:${PORT}", "--ready", "/healthz", "--caller", tok1, "--caller", tok2,
				"--webhook", "/webhooks/psp", "--credits", "/credits?psp_payment_id={{psp_payment_id}}", "--", paysvc, "--hook-flaw", c.flaw, "--credits-shape", c.shape)
			text, _ := os.ReadFile(cfg)
			for _, want := range []string{`webhook:` + "\n" + `  path: "/webhooks/psp"`, "answered 200", `url: "http://127.0.0.1:${PORT_0}/credits?psp_payment_id={{psp_payment_id}}"`, "list: " + c.shape} {
				if !strings.Contains(string(text), want) {
					t.Errorf("the probed config lacks %q:\n%s", want, text)
				}
			}
			shortQuiet(t, cfg)
			code, rep := runWith(t, cfg, "--only", only)
			kinds := map[string]string{}
			for _, r := range rep.Results {
				if r.Verdict != "pass" && r.Verdict != "violation" {
					t.Errorf("%s: %s (%s)", r.ID, r.Verdict, r.Why)
				}
				for _, f := range r.Findings {
					kinds[r.ID] = f.Kind
				}
			}
			if code != c.code || fmt.Sprint(kinds) != c.kinds {
				t.Errorf("exit %d kinds %v, want %d %s", code, kinds, c.code, c.kinds)
			}
		})
	}
}
