package scenario

import (
	"testing"
	"time"
)

// TestConvergeCountsFromTheHarnessFaultsEnd: a client that began
// converging before a kill counts converge_within from when the restart
// was done, not from its own start; with no harness fault nothing changes.
func TestConvergeCountsFromTheHarnessFaultsEnd(t *testing.T) {
	e := testEnv(t, staticEffects(nil))
	c := e.Cfg.ConvergeD()
	if c != 300*time.Millisecond {
		t.Fatalf("converge %v, want the test config's 300ms", c)
	}
	start := time.Now().Add(-10 * time.Second)
	if got := e.convergeAfterHarness(start); !got.Equal(start.Add(c)) {
		t.Fatalf("no harness fault: deadline %v after start, want %v", got.Sub(start), c)
	}
	off := e.HarnessFault()
	if got := e.convergeAfterHarness(start); got.Before(time.Now().Add(c - 50*time.Millisecond)) {
		t.Fatalf("while the restart runs: deadline %v from now, want about %v", time.Until(got), c)
	}
	off()
	off() // a second call is a no-op
	ended := e.harness.endedAt
	if got := e.convergeAfterHarness(start); !got.Equal(ended.Add(c)) {
		t.Fatalf("after the restart: deadline %v after its end, want %v", got.Sub(ended), c)
	}
	if e.harness.on != 0 {
		t.Fatalf("on %d after off twice, want 0", e.harness.on)
	}
	// A client that began after the fault ended keeps its own window.
	later := time.Now().Add(time.Second)
	if got := e.convergeAfterHarness(later); !got.Equal(later.Add(c)) {
		t.Fatalf("began after the fault: deadline %v after start, want %v", got.Sub(later), c)
	}
	// A restart that never ends cannot hold a client past the cap.
	old := time.Now().Add(-time.Hour)
	e.HarnessFault()
	if got := e.convergeAfterHarness(old); !got.Equal(old.Add(c + harnessCap)) {
		t.Fatalf("a fault that never ends: deadline %v after start, want %v", got.Sub(old), c+harnessCap)
	}
}
