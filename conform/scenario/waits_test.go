package scenario

import (
	"context"
	"testing"
	"time"
)

// TestWaitsSumEachReasonInAFixedOrder: each reason sums every wait recorded
// under it, the list keeps the documented order whatever order the waits
// came in, and a reason never waited for is left out.
func TestWaitsSumEachReasonInAFixedOrder(t *testing.T) {
	e := &Env{}
	if w := e.Waits(); len(w) != 0 {
		t.Fatalf("no wait yet: %v", w)
	}
	e.waited.add(WaitBackoff, 100*time.Millisecond)
	e.waited.add(WaitQuiet, 3*time.Second)
	e.waited.add(WaitBackoff, 150*time.Millisecond)
	got := e.Waits()
	want := []Wait{{WaitQuiet, 3 * time.Second}, {WaitBackoff, 250 * time.Millisecond}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("Waits() = %v, want %v", got, want)
	}
}

// TestSleepForRecordsWhatItSlept: a sleep cut short by its context records
// the time it slept, not the time it was asked for.
func TestSleepForRecordsWhatItSlept(t *testing.T) {
	e := &Env{}
	if err := e.sleepFor(context.Background(), WaitSettle, 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := e.sleepFor(ctx, WaitWindow, time.Hour); err == nil {
		t.Fatal("a cancelled sleep returned no error")
	}
	w := e.Waits()
	if len(w) != 2 || w[0].Reason != WaitSettle || w[0].Total < 20*time.Millisecond || w[1].Reason != WaitWindow || w[1].Total >= time.Second {
		t.Fatalf("Waits() = %v", w)
	}
}
