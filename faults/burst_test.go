package faults

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestBurstDelaysAndCounts: each kind of burst delays a round trip by at
// least what it says, counts what it held back, and is gone after undo.
func TestBurstDelaysAndCounts(t *testing.T) {
	_, l := newLink(t)
	cases := []struct {
		b   Burst
		min time.Duration
	}{
		{Burst{Kind: BurstLatency, Latency: 120 * time.Millisecond}, 120 * time.Millisecond},
		{Burst{Kind: BurstJitter, Latency: 150 * time.Millisecond, Jitter: 40 * time.Millisecond}, 110 * time.Millisecond},
		// "ok " + 4000 bytes at 8 KB/s: half a second.
		{Burst{Kind: BurstBandwidth, Rate: 8}, 400 * time.Millisecond},
		{Burst{Kind: BurstSlowClose, Close: 100 * time.Millisecond, Latency: 60 * time.Millisecond}, 60 * time.Millisecond},
	}
	for _, c := range cases {
		msg := "x"
		if c.b.Kind == BurstBandwidth {
			msg = strings.Repeat("y", 4000)
		}
		undo, count, err := l.Burst(c.b)
		if err != nil {
			t.Fatalf("%s: %v", c.b, err)
		}
		start := time.Now()
		got, err := roundTrip(l.Addr(), msg, 5*time.Second)
		took := time.Since(start)
		if err != nil || got != "ok "+msg+"\n" {
			t.Fatalf("%s: round trip %q %v", c.b, got, err)
		}
		if took < c.min {
			t.Errorf("%s: the round trip took %s, want at least %s", c.b, took, c.min)
		}
		if count() == 0 {
			t.Errorf("%s: counted nothing held back", c.b)
		}
		if err := undo(); err != nil {
			t.Fatalf("%s: undo: %v", c.b, err)
		}
		start = time.Now()
		if _, err := roundTrip(l.Addr(), "z", time.Second); err != nil || time.Since(start) > 80*time.Millisecond {
			t.Errorf("%s: after undo the round trip took %s (%v)", c.b, time.Since(start), err)
		}
	}
}

// TestDrawBurstIsSeeded: one seed draws the same bursts; every kind comes
// up, each within tens to hundreds of milliseconds.
func TestDrawBurstIsSeeded(t *testing.T) {
	a, b := rand.New(rand.NewPCG(7, 1)), rand.New(rand.NewPCG(7, 1))
	kinds := map[string]bool{}
	for range 200 {
		x, y := DrawBurst(a), DrawBurst(b)
		if x != y {
			t.Fatalf("one seed drew %s and %s", x, y)
		}
		kinds[x.Kind] = true
		if x.Latency > 300*time.Millisecond || x.Jitter > 150*time.Millisecond || x.Close > 300*time.Millisecond || x.Hold < 500*time.Millisecond || x.Hold > 1500*time.Millisecond {
			t.Fatalf("out of range: %+v", x)
		}
	}
	if len(kinds) != 4 {
		t.Fatalf("kinds drawn %v, want all four", kinds)
	}
}
