package conform

import (
	"fmt"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// TestConsumerWindowsEverySeed: the flaws that lose a credit only inside a
// record's processing (marked done before the credit; a batch rolled back
// on SIGTERM and committed anyway) are caught with exactly lost-effect by
// Q-kill and Q-rebalance in every seed, because both aim their kills and
// leaves at seeded points of the processing, not at whatever moment comes;
// the correct consumer passes both in every seed.
func TestConsumerWindowsEverySeed(t *testing.T) {
	broker := testKafka(t)
	t.Cleanup(func() { assertNoQueueLeft(t, broker) })
	ids := []string{"Q-kill", "Q-rebalance"}
	const lost = checker.KindLostEffect
	cases := []struct {
		flaw string
		want map[string][]string
	}{
		{"mark-before-credit", map[string][]string{"Q-kill": {lost}, "Q-rebalance": {lost}}},
		{"shutdown-rollback", map[string][]string{"Q-rebalance": {lost}}},
		{"none", map[string][]string{}},
	}
	for _, c := range cases {
		for seed := uint64(1); seed <= uint64(measuredSeeds(t, 2)); seed++ {
			t.Run(fmt.Sprintf("%s/seed-%d", c.flaw, seed), func(t *testing.T) {
				t.Parallel()
				code, rep, out := runText(t, queueConfig(c.flaw, broker), Options{Only: ids, Seed: seed})
				if rep == nil {
					t.Fatalf("seed %d: no report (exit %d): %s", seed, code, out)
				}
				if got := findingKinds(rep.Results, ids); fmt.Sprint(got) != fmt.Sprint(c.want) {
					t.Errorf("seed %d: kinds by check = %v, want %v\n%s", seed, got, c.want, out)
				}
				for _, r := range rep.Results {
					if _, flagged := c.want[r.ID]; !flagged && r.Verdict != scenario.Pass && (r.ID == ids[0] || r.ID == ids[1]) {
						t.Errorf("seed %d: %s: %s %s", seed, r.ID, r.Verdict, r.Why)
					}
				}
			})
		}
	}
}
