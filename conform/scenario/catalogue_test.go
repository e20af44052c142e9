package scenario

import (
	"slices"
	"testing"

	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/faults"
)

// TestPSPFamilyIsFakepspsKinds: the catalogue's PSP family has exactly one
// fault per fakepsp kind, so a kind added to fakepsp's table without its
// catalogue value (or the reverse) fails here.
func TestPSPFamilyIsFakepspsKinds(t *testing.T) {
	var got []string
	for _, f := range faults.All() {
		if p, ok := f.(faults.PSPFault); ok {
			got = append(got, p.Kind)
		}
	}
	slices.Sort(got)
	var want []string
	for _, k := range fakepsp.Kinds() {
		want = append(want, string(k))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("PSP faults arm kinds %v; fakepsp has %v", got, want)
	}
}

// TestScheduleDrawsEveryApplicableFault: over a long run the schedule puts
// every fault it is given on some intent, and nothing else.
func TestScheduleDrawsEveryApplicableFault(t *testing.T) {
	names := faults.Names(faults.All())
	seen := map[string]bool{}
	for _, p := range Schedule(42, names, 3, 400) {
		seen[p.Fault] = true
	}
	for _, n := range names {
		if !seen[n] {
			t.Errorf("400 intents never drew %s", n)
		}
	}
	if len(seen) != len(names)+1 {
		t.Errorf("drew %d kinds, want %d faults and %q", len(seen), len(names), NoFault)
	}
}
