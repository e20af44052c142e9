package core

import "testing"

// Moved from fakepsp's TestRateLimiterBuckets with the limiter.
func TestRateLimiterBuckets(t *testing.T) {
	l := NewRateLimiter(RateLimits{PerAccount: 2, PerEndpoint: 100})
	if !l.Allow("a", "x") || !l.Allow("a", "y") || l.Allow("a", "z") || !l.Allow("b", "x") {
		t.Fatal("per-account bucket of 2 did not limit the third request or limited another account")
	}
	off := NewRateLimiter(RateLimits{PerAccount: 1, PerEndpoint: 1, Disabled: true})
	for i := range 5 {
		if !off.Allow("a", "x") {
			t.Fatalf("disabled limiter limited request %d", i+1)
		}
	}
}
