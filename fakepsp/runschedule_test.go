package fakepsp

import (
	"testing"
	"time"
)

// TestRunScheduleScalesEachDialectsOwn: one knob scales every dialect's
// retries 200 times: Stripe's minute to 300 ms doubling, Adyen's table
// step by step.
func TestRunScheduleScalesEachDialectsOwn(t *testing.T) {
	s := RunSchedule("stripe", time.Second)
	if s.Backoff(1) != 300*time.Millisecond || s.Backoff(3) != 1200*time.Millisecond || s.Horizon != 2*time.Minute || s.Timeout != time.Second {
		t.Fatalf("stripe: %+v", s)
	}
	a := RunSchedule("adyen", time.Second)
	for n, want := range map[int]time.Duration{1: 45 * time.Millisecond, 3: 45 * time.Millisecond, 4: 600 * time.Millisecond, 12: 144 * time.Second, 20: 144 * time.Second} {
		if got := a.Backoff(n); got != want {
			t.Errorf("adyen retry %d waits %s, want %s", n, got, want)
		}
	}
}
