package checks

import (
	"slices"
	"testing"
	"time"
)

// TestBurstPlanIsSeeded: the bursts are a pure function of the seed, fall
// within the run, take every link in a run long enough, and differ
// between seeds.
func TestBurstPlanIsSeeded(t *testing.T) {
	d := 6 * time.Second
	a, b := BurstPlan(3, 3, d), BurstPlan(3, 3, d)
	if !slices.Equal(a, b) {
		t.Fatalf("one seed, two plans:\n%v\n%v", a, b)
	}
	if len(a) != 6 {
		t.Fatalf("%d bursts over %s, want 6", len(a), d)
	}
	links := map[int]bool{}
	for i, p := range a {
		links[p.Link] = true
		if p.At < 0 || p.At >= d || i > 0 && p.At <= a[i-1].At {
			t.Errorf("burst %d at %s: outside the run or out of order", p.N, p.At)
		}
	}
	if len(links) != 3 {
		t.Errorf("links burst %v, want all 3", links)
	}
	if slices.Equal(a, BurstPlan(4, 3, d)) {
		t.Errorf("seeds 3 and 4 drew the same plan")
	}
	if BurstPlan(3, 0, d) != nil {
		t.Errorf("a plan without links")
	}
}
