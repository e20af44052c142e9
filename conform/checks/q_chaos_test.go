package checks

import (
	"slices"
	"testing"
)

// The consumer schedule is a pure function of the seed, meets every fault
// within its first records, and draws no process fault without processes.
func TestQueueSchedule(t *testing.T) {
	a, b := QueueSchedule(11, 40, 2), QueueSchedule(11, 40, 2)
	if !slices.Equal(a, b) {
		t.Fatal("one seed gave two schedules")
	}
	if slices.Equal(a, QueueSchedule(12, 40, 2)) {
		t.Fatal("two seeds gave one schedule")
	}
	all := []string{QueueDuplicate, QueuePoison, QueueKill, QueueRebalance}
	var head []string
	for _, p := range a[:2*len(all)] {
		if p.Fault != QueueNone {
			head = append(head, p.Fault)
		}
	}
	slices.Sort(head)
	want := slices.Clone(all)
	slices.Sort(want)
	if !slices.Equal(head, want) {
		t.Fatalf("first %d records draw %v, want each of %v once", 2*len(all), head, want)
	}
	for _, p := range QueueSchedule(11, 40, 0) {
		if p.Fault == QueueKill || p.Fault == QueueRebalance {
			t.Fatalf("record %d draws %s with no process to strike", p.N, p.Fault)
		}
	}
}
