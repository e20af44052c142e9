package conform

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// adyenFixture is paysvc on Adyen's wire (--psp adyen) behind a fakepsp
// speaking Adyen (effects.psp: adyen), with its notification handler.
func adyenFixture(flaw, hookFlaw string) fixture {
	return fixture{flaw: flaw, instances: 2, effects: "fakepsp: true\n  psp: adyen",
		args: []string{"--psp", "adyen", "--hook-flaw", hookFlaw}, extra: webhookYAML}
}

// TestAdyenFixturePasses: the correct Adyen service passes every check
// that applies, with the Adyen-shaped PSP under it: no finding, and the
// charge and webhook checks ran (not n/a).
func TestAdyenFixturePasses(t *testing.T) {
	code, rep, out := adyenFixture("none", "none").run(t, Options{})
	if rep == nil {
		t.Fatalf("no report (exit %d): %s", code, out)
	}
	ran := map[string]scenario.Verdict{}
	for _, r := range rep.Results {
		ran[r.ID] = r.Verdict
		if len(r.Findings) > 0 || r.Verdict == scenario.Violation || r.Verdict == scenario.Errored || r.Verdict == scenario.Inconclusive {
			t.Errorf("%s: %s (%s) %v", r.ID, r.Verdict, r.Why, r.Findings)
		}
	}
	for _, id := range []string{"A1", "A2", "W-dup", "W-concurrent", "W-kill", "W-forged"} {
		if ran[id] != scenario.Pass {
			t.Errorf("%s: %q, want pass", id, ran[id])
		}
	}
	if code != ExitPass {
		t.Fatalf("exit %d, want %d\n%s", code, ExitPass, out)
	}
}

// TestAdyenFixtureFlawsCaught: each flaw of an Adyen service is caught
// with its exact kind by exactly the check that can see it.
func TestAdyenFixtureFlawsCaught(t *testing.T) {
	cases := []struct {
		name, flaw, hookFlaw, check, kind string
	}{
		{"psp-key-per-attempt", "new-psp-key", "none", "A1", checker.KindDoubleCharge},
		{"no-dedup", "none", "no-dedup", "W-dup", checker.KindDoubleCredit},
		{"no-hmac-check", "none", "no-signature", "W-forged", checker.KindForgedEvent},
		{"ack-before-credit", "none", "ack-first", "W-kill", checker.KindLostEffect},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			code, rep, out := adyenFixture(c.flaw, c.hookFlaw).run(t, Options{Only: []string{c.check}})
			if rep == nil {
				t.Fatalf("no report (exit %d): %s", code, out)
			}
			got := findingKinds(rep.Results, []string{c.check})
			if want := map[string][]string{c.check: {c.kind}}; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("kinds by check = %v, want %v\n%s", got, want, out)
			}
			if code != ExitViolation {
				t.Errorf("exit %d, want %d", code, ExitViolation)
			}
		})
	}
}

// TestAdyenChaos: chaos runs unchanged on the Adyen fixture: the correct
// service passes a seeded chaos run (PSP faults and webhook duplicates
// drawn), and a PSP key per attempt is caught as a double charge.
func TestAdyenChaos(t *testing.T) {
	for _, c := range []struct {
		flaw  string
		code  int
		kinds []string
	}{{"none", ExitPass, nil}, {"new-psp-key", ExitViolation, []string{checker.KindDoubleCharge}}} {
		t.Run(c.flaw, func(t *testing.T) {
			t.Parallel()
			code, rep, out := adyenFixture(c.flaw, "none").run(t, Options{Chaos: true, Seed: 5, Duration: 4e9, Quiet: true})
			if rep == nil || len(rep.Schedule) == 0 {
				t.Fatalf("chaos did not run (exit %d)\n%s", code, out)
			}
			if !strings.Contains(strings.Join(rep.Schedule, "\n"), "psp-webhook-duplicates") {
				t.Errorf("the schedule drew no webhook fault:\n%s", strings.Join(rep.Schedule, "\n"))
			}
			got := findingKinds(rep.Results, []string{"chaos"})["chaos"]
			if code != c.code || !slices.Equal(got, c.kinds) {
				t.Errorf("exit %d kinds %v, want %d %v\n%s", code, got, c.code, c.kinds, out)
			}
		})
	}
}
