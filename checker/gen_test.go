package checker

import (
	"testing"
)

// TestGeneratedLegal: heavy concurrency with unknown outcomes passes, with and
// without the initial balances.
func TestGeneratedLegal(t *testing.T) {
	for _, seed := range []int64{1, 2, 3} {
		h, initial := Generate(GenOptions{Seed: seed, Ops: 20000, UnknownRate: 0.05})
		t.Logf("seed %d: %d ops", seed, len(h))
		for _, opts := range []CheckOptions{{InitialBalances: initial}, {}} {
			res := Check(h, opts)
			if !res.OK() || !res.Decided() {
				t.Fatalf("seed %d: want legal, got\n%s", seed, res.Text())
			}
		}
	}
}
