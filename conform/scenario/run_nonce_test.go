package scenario

import (
	"testing"

	"github.com/idemcheck/idemcheck/conform/config"
)

// TestRunsOfOneSeedUseTheirOwnOrdersAndKeys: two runs with one seed send
// other order ids and keys (a deployment and a fakepsp that outlive runs
// hold the first run's, and a reused key is judged as a replay); one run
// draws the same again from the same seed and nonce.
func TestRunsOfOneSeedUseTheirOwnOrdersAndKeys(t *testing.T) {
	cfg := &config.Config{Create: config.Request{Key: config.Key{Format: "uuid"}}}
	first := func(run uint32) (string, string) {
		e := &Env{Cfg: cfg, Seed: 7, Run: run}
		in := e.NewIntent(0)
		return in.Meaning.OrderID, in.Key
	}
	o1, k1 := first(11)
	o2, k2 := first(12)
	if o1 == o2 || k1 == k2 {
		t.Fatalf("runs 11 and 12 of seed 7 share order %q/%q or key %q/%q", o1, o2, k1, k2)
	}
	if o, k := first(11); o != o1 || k != k1 {
		t.Fatalf("run 11 again drew %q %q, first %q %q", o, k, o1, k1)
	}
}
