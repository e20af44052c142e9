package reference

import (
	"slices"
	"testing"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/targets/failpoint"
)

// TestFailpointFaultsNameRegisteredPoints: the catalogue names failpoints by
// string (package faults imports no tier); every one must be a point some
// tier registers, or arming it would fail at run time.
func TestFailpointFaultsNameRegisteredPoints(t *testing.T) {
	n := 0
	for _, f := range faults.All() {
		c, ok := f.(faults.CrashAt)
		if !ok {
			continue
		}
		n++
		if !slices.Contains(failpoint.Points, c.Point) {
			t.Errorf("%s arms %q, which no tier registers (have %v)", f.Name(), c.Point, failpoint.Points)
		}
	}
	if n == 0 {
		t.Fatal("no failpoint faults in the catalogue")
	}
}

func TestKindOf(t *testing.T) {
	for name, want := range map[string]string{"api-1": "api", "api-12": "api", "lb": "lb", "relay": "relay", "stream-job": "stream-job", "worker-R1": "worker-R1"} {
		if got := kindOf(name); got != want {
			t.Errorf("kindOf(%q) = %q, want %q", name, got, want)
		}
	}
}
