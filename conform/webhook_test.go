package conform

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

var webhookIDs = []string{"W-dup", "W-concurrent", "W-lost-ack", "W-kill", "W-order", "W-early", "W-forged"}

const webhookYAML = `webhook: {path: /webhooks/psp}
ledger:
  credits: {url: "http://127.0.0.1:${PORT_0}/credits?psp_payment_id={{psp_payment_id}}", list: data}
`

func hookFixture(flaw string, instances int) fixture {
	return fixture{flaw: "none", instances: instances, args: []string{"--hook-flaw", flaw}, extra: webhookYAML}
}

func findingKinds(results []scenario.Result, ids []string) map[string][]string {
	m := map[string][]string{}
	for _, r := range results {
		if !slices.Contains(ids, r.ID) {
			continue
		}
		for _, f := range r.Findings {
			if !slices.Contains(m[r.ID], f.Kind) {
				m[r.ID] = append(m[r.ID], f.Kind)
			}
		}
	}
	return m
}

// TestWebhookFlawsCaught: each handler flaw is caught by the checks that
// can see it, with exactly its kind, and by no other check.
func TestWebhookFlawsCaught(t *testing.T) {
	const dc = checker.KindDoubleCredit
	cases := []struct {
		flaw string
		want map[string][]string // check -> kinds
	}{
		// Every check that delivers an event twice sees it; W-early and
		// W-forged deliver each event once.
		{"no-dedup", map[string][]string{"W-dup": {dc}, "W-concurrent": {dc}, "W-lost-ack": {dc}, "W-kill": {dc}, "W-order": {dc}}},
		// Two instances, each with its own memory: concurrent copies to
		// both credit twice, and so does the redelivery after a restart.
		{"memory-dedup", map[string][]string{"W-concurrent": {dc}, "W-kill": {dc}}},
		{"check-then-insert", map[string][]string{"W-concurrent": {dc}}},
		{"ack-first", map[string][]string{"W-kill": {checker.KindLostEffect}}},
		// Two event types credit one payment: every check's normal delivery.
		{"two-types", map[string][]string{"W-dup": {dc}, "W-concurrent": {dc}, "W-lost-ack": {dc}, "W-kill": {dc}, "W-order": {dc}, "W-early": {dc}, "W-forged": {dc}}},
		{"no-signature", map[string][]string{"W-forged": {checker.KindForgedEvent}}},
		{"no-tolerance", map[string][]string{"W-forged": {checker.KindForgedEvent}}},
		{"unknown-dropped", map[string][]string{"W-early": {checker.KindLostEffect}}},
	}
	for _, c := range cases {
		t.Run(c.flaw, func(t *testing.T) {
			// Each run has its own service, fakepsp and ports.
			t.Parallel()
			code, rep, out := hookFixture(c.flaw, 2).run(t, Options{Only: webhookIDs})
			if rep == nil {
				t.Fatalf("no report (exit %d): %s", code, out)
			}
			got := findingKinds(rep.Results, webhookIDs)
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("kinds by check = %v, want %v\n%s", got, c.want, out)
			}
			if code != ExitViolation {
				t.Errorf("exit %d, want %d", code, ExitViolation)
			}
			// The check's history holds the credits it counted: the checker,
			// offline, names the same double credit.
			for _, r := range rep.Results {
				if r.ID != "W-dup" || c.want["W-dup"] == nil || c.want["W-dup"][0] != dc {
					continue
				}
				res := checker.Check(r.History, checker.CheckOptions{})
				if !slices.ContainsFunc(res.Violations, func(v checker.Violation) bool { return v.Kind == dc }) {
					t.Errorf("W-dup's history, checked offline, has no double-credit: %v", res.Violations)
				}
			}
		})
	}
}

// TestWebhookCorrectPasses: the correct handlers pass every webhook check.
func TestWebhookCorrectPasses(t *testing.T) {
	for _, flaw := range []string{"none", "unique-payment"} {
		t.Run(flaw, func(t *testing.T) {
			// Each run has its own service, fakepsp and ports.
			t.Parallel()
			code, rep, out := hookFixture(flaw, 2).run(t, Options{Only: webhookIDs})
			if code != ExitPass {
				t.Fatalf("exit %d, want 0\n%s", code, out)
			}
			for _, r := range rep.Results {
				if slices.Contains(webhookIDs, r.ID) && r.Verdict != scenario.Pass {
					t.Errorf("%s: %s %s", r.ID, r.Verdict, r.Why)
				}
			}
		})
	}
}

// TestWebhookChaos: with a webhook section, chaos draws the webhook faults
// too and judges every charged intent's credits: the correct handler has
// no finding, one without dedup is caught as a double credit.
func TestWebhookChaos(t *testing.T) {
	for _, c := range []struct {
		flaw  string
		code  int
		kinds []string
	}{{"none", ExitPass, nil}, {"no-dedup", ExitViolation, []string{checker.KindDoubleCredit}}} {
		t.Run(c.flaw, func(t *testing.T) {
			// Each run has its own service, fakepsp and ports.
			t.Parallel()
			code, rep, out := hookFixture(c.flaw, 2).run(t, Options{Chaos: true, Seed: 5, Duration: 4e9, Quiet: true})
			if rep == nil || len(rep.Schedule) == 0 {
				t.Fatalf("chaos did not run (exit %d)\n%s", code, out)
			}
			if !strings.Contains(strings.Join(rep.Schedule, "\n"), "psp-webhook-duplicates") {
				t.Errorf("the schedule drew no webhook fault:\n%s", strings.Join(rep.Schedule, "\n"))
			}
			got := findingKinds(rep.Results, []string{"chaos"})["chaos"]
			// Without dedup a refund event delivered twice also debits
			// twice: fakepsp's duplicates (effects.webhook_duplicates) reach
			// a refund's event in some runs, as they do on Stripe.
			got = slices.DeleteFunc(got, func(k string) bool { return c.flaw == "no-dedup" && k == checker.KindDoubleRefund })
			if code != c.code || fmt.Sprint(got) != fmt.Sprint(c.kinds) {
				t.Errorf("exit %d kinds %v, want %d %v (and, without dedup, maybe %s)\n%s", code, got, c.code, c.kinds, checker.KindDoubleRefund, out)
			}
		})
	}
}
