package survey

import "testing"

// TestTallyNamesEachVerdictOnce: an unstable protocol vector's tally reads
// "pass 3/5, deviation 2/5" (idemkit's P-4xx-replayed on 2026-12-06 read
// "deviation deviation 2/5"), and a violation keeps its kinds.
func TestTallyNamesEachVerdictOnce(t *testing.T) {
	dev := outcome{verdict: "deviation", kinds: []string{"deviation"}}
	pass := outcome{verdict: "pass"}
	c := cell{id: "P-4xx-replayed", outcomes: []outcome{pass, dev, pass, dev, pass}, seeds: []uint64{1, 2, 3, 4, 5}}
	if got, want := c.tally(), "pass 3/5, deviation 2/5"; got != want {
		t.Errorf("tally %q, want %q", got, want)
	}
	v := outcome{verdict: "violation", kinds: []string{"double-booking", "inconsistent-answer"}}
	c = cell{id: "A2", outcomes: []outcome{v, pass}, seeds: []uint64{1, 2}}
	if got, want := c.tally(), "pass 1/2, violation double-booking,inconsistent-answer 1/2"; got != want {
		t.Errorf("tally %q, want %q", got, want)
	}
}
