package checks

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

func TestRoundsSplitTheDuration(t *testing.T) {
	cases := []struct {
		d, w time.Duration
		want string
	}{
		{20 * time.Second, time.Minute, "[20s]"}, // a run of one window is as it always was
		{time.Minute, time.Minute, "[1m0s]"},     // exactly one window: one round
		{3 * time.Minute, time.Minute, "[1m0s 1m0s 1m0s]"},
		{150 * time.Second, time.Minute, "[1m0s 1m0s 30s]"},
		{130 * time.Second, time.Minute, "[1m0s 1m10s]"}, // a 10 s sliver joins the round before
		{time.Hour, time.Minute, fmt.Sprint(slices.Repeat([]time.Duration{time.Minute}, 60))},
		{10 * time.Second, 0, "[10s]"},
	}
	for _, c := range cases {
		got := Rounds(c.d, c.w)
		if fmt.Sprint(got) != c.want {
			t.Errorf("Rounds(%s, %s) = %v, want %s", c.d, c.w, got, c.want)
		}
		var sum time.Duration
		for _, r := range got {
			sum += r
		}
		if sum != c.d {
			t.Errorf("Rounds(%s, %s) sum to %s", c.d, c.w, sum)
		}
	}
}

// TestRoundSeedsReplay: round 0 is the run's seed (its first window is the
// one-window run of that seed), every round's seed is the same on a
// replay, and no two rounds of an hour share a seed (or a schedule).
func TestRoundSeedsReplay(t *testing.T) {
	const seed = 1234567
	if RoundSeed(seed, 0) != seed {
		t.Fatalf("round 0 seed %d, want the run's %d", RoundSeed(seed, 0), seed)
	}
	seen := map[uint64]int{}
	for r := range 60 {
		s := RoundSeed(seed, r)
		if s != RoundSeed(seed, r) {
			t.Fatalf("round %d: two seeds for one round", r)
		}
		if prev, dup := seen[s]; dup {
			t.Fatalf("rounds %d and %d share seed %d", prev, r, s)
		}
		seen[s] = r
	}
	names := []string{"psp-reply-lost", "kill-owner"}
	a := Schedule(RoundSeed(seed, 3), names, 2, 40)
	b := Schedule(RoundSeed(seed, 3), names, 2, 40)
	c := Schedule(RoundSeed(seed, 4), names, 2, 40)
	if !slices.Equal(a, b) {
		t.Fatal("round 3's schedule differs between two plans of it")
	}
	if slices.Equal(a, c) {
		t.Fatal("rounds 3 and 4 planned the same schedule")
	}
	if RoundSeed(seed+1, 1) == RoundSeed(seed, 1) {
		t.Fatal("two runs' seeds give round 1 the same seed")
	}
}

func TestWallBoundIsTheDurationUnlessOneRoundsBoundIsLonger(t *testing.T) {
	if got := wallBound(time.Hour, time.Minute); got != time.Hour {
		t.Errorf("1h in 1m rounds: bound %s, want 1h", got)
	}
	if got := wallBound(6*time.Second, 2*time.Second); got != 36*time.Second {
		t.Errorf("6s in 2s rounds: bound %s, want 36s (3w+30s)", got)
	}
}
