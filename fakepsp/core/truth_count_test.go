package core

import "testing"

// TestGroundTruthCountsWhatOpsReturns: Count agrees with len(Ops) per kind
// and in all, as the judge's cache relies on it.
func TestGroundTruthCountsWhatOpsReturns(t *testing.T) {
	g := NewGroundTruth(nil, nil)
	for _, k := range []string{"charge", "refund", "charge"} {
		g.Add(EffectOp(k, "k", 100, nil))
	}
	for kind, want := range map[string]int{"charge": 2, "refund": 1, "": 3, "capture": 0} {
		if n, ops := g.Count(kind), g.Ops(kind); n != want || len(ops) != want {
			t.Errorf("kind %q: Count %d, len(Ops) %d, want %d", kind, n, len(ops), want)
		}
	}
	if g.Ops("capture") != nil {
		t.Errorf("Ops of a kind never logged: want nil, as before")
	}
}
