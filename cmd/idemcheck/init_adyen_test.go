package main

import (
	"os"
	"strings"
	"testing"
)

// TestProbedAdyenService: init --probe learns from the service's first PSP
// request that it calls Adyen's API, starts over with a fakepsp speaking
// Adyen, and writes effects.psp: adyen with the webhook section; run with
// that config, unedited, passes every check that applies on the correct
// Adyen service, the webhook checks among them.
func TestProbedAdyenService(t *testing.T) {
	t.Parallel()
	paysvc, _ := services(t)
	cfg := probeInit(t, "--probe", "http://127.0.0.1:${PORT}", "--ready", "/healthz", "--caller", tok1, "--caller", tok2,
		"--webhook", "/webhooks/psp", "--credits", "/credits?psp_payment_id={{psp_payment_id}}", "--", paysvc, "--psp", "adyen")
	text, _ := os.ReadFile(cfg)
	for _, want := range []string{"  psp: adyen", `webhook:` + "\n" + `  path: "/webhooks/psp"`, "AUTHORISATION", "answered 200"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the probed config lacks %q:\n%s", want, text)
		}
	}
	shortQuiet(t, cfg)
	code, rep := runWith(t, cfg)
	ran := map[string]string{}
	for _, r := range rep.Results {
		ran[r.ID] = r.Verdict
		if r.Verdict != "pass" && r.Verdict != "n/a" {
			t.Errorf("%s: %s (%s)", r.ID, r.Verdict, r.Why)
		}
	}
	for _, id := range []string{"A1", "W-dup", "W-forged"} {
		if ran[id] != "pass" {
			t.Errorf("%s: %q, want pass", id, ran[id])
		}
	}
	if code != 0 {
		t.Errorf("run with the probed config: exit %d, want 0", code)
	}
}
