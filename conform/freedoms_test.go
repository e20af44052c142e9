package conform

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
)

const freedomsOff = "fakepsp: true\n  webhook_duplicates: off\n  webhook_out_of_order: off"

// TestWebhookFreedoms: Stripe's delivery freedoms (duplicates, no promised
// order) are on by default in a run, and the report says so. A handler that
// assumes payment_intent.created comes first drops the success event that
// overtook it: a chaos run catches it as lost-effect in every seed, and the
// same run with the freedoms off does not, which shows the freedoms are what
// catch it. The correct handler passes with them on (TestWebhookChaos,
// TestWebhookCorrectPasses).
func TestWebhookFreedoms(t *testing.T) {
	type tc struct {
		name, flaw, effects string
		seed                uint64
		code                int
		kinds               []string
	}
	var cases []tc
	for seed := uint64(1); seed <= uint64(measuredSeeds(t, 2)); seed++ {
		cases = append(cases, tc{fmt.Sprintf("created-first/on/seed-%d", seed), "created-first", "", seed, ExitViolation, []string{checker.KindLostEffect}})
	}
	cases = append(cases, tc{"created-first/off/seed-1", "created-first", freedomsOff, 1, ExitPass, nil})
	if os.Getenv("IDEMCHECK_MEASURE_SEEDS") != "" {
		for seed := uint64(1); seed <= uint64(2*measuredSeeds(t, 2)); seed++ {
			cases = append(cases, tc{fmt.Sprintf("none/on/seed-%d", seed), "none", "", seed, ExitPass, nil})
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := hookFixture(c.flaw, 2)
			f.effects = c.effects
			code, rep, out := f.run(t, Options{Chaos: true, Seed: c.seed, Duration: 4e9, Quiet: true})
			if rep == nil {
				t.Fatalf("no report (exit %d)\n%s", code, out)
			}
			got := findingKinds(rep.Results, []string{"chaos"})["chaos"]
			if code != c.code || fmt.Sprint(got) != fmt.Sprint(c.kinds) {
				// The PSP's lines say how many events went late: a run in
				// which none did could not have caught the flaw.
				t.Errorf("exit %d kinds %v, want %d %v\npsp_behaviour:\n%s\n%s", code, got, c.code, c.kinds, strings.Join(rep.PSP, "\n"), out)
			}
			psp := strings.Join(rep.PSP, "\n")
			on := c.effects == ""
			if strings.Contains(psp, "are delivered a second time") != on || strings.Contains(psp, "late, so the events raised meanwhile overtake them") != on ||
				!strings.Contains(psp, "webhooks in this run:") {
				t.Errorf("psp_behaviour does not say the freedoms were %v:\n%s", map[bool]string{true: "on", false: "off"}[on], psp)
			}
			t.Logf("seed %d: %s", c.seed, rep.PSP[len(rep.PSP)-1])
		})
	}
}
