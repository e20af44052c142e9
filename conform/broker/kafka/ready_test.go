package kafka

import (
	"testing"

	"github.com/idemcheck/idemcheck/conform/broker"
)

// TestReadinessIsTheGroupStableWithItsMembers: Kafka's readiness is the
// rule the Q checks applied before brokers had their own (the group
// Stable with one member per process, or some member when idemcheck does
// not own the processes), in the same words.
func TestReadinessIsTheGroupStableWithItsMembers(t *testing.T) {
	members := func(n int) []broker.Member { return make([]broker.Member, n) }
	for _, tc := range []struct {
		name      string
		g         broker.Group
		consumers int
		ready     bool
		unmet     string
		saw       string
	}{
		{"stable, one member per process", broker.Group{State: "Stable", Stable: true, Members: members(2)}, 2, true,
			"group g was not Stable with 2 member(s)", `state "Stable", 2 member(s)`},
		{"stable, a member short", broker.Group{State: "Stable", Stable: true, Members: members(1)}, 2, false,
			"group g was not Stable with 2 member(s)", `state "Stable", 1 member(s)`},
		{"stable, a member too many", broker.Group{State: "Stable", Stable: true, Members: members(3)}, 2, false,
			"group g was not Stable with 2 member(s)", `state "Stable", 3 member(s)`},
		{"rebalancing", broker.Group{State: "PreparingRebalance", Members: members(2)}, 2, false,
			"group g was not Stable with 2 member(s)", `state "PreparingRebalance", 2 member(s)`},
		{"processes not idemcheck's, some member", broker.Group{State: "Stable", Stable: true, Members: members(3)}, 0, true,
			"group g was not Stable with 1 member(s)", `state "Stable", 3 member(s)`},
		{"processes not idemcheck's, no member", broker.Group{State: "Empty"}, 0, false,
			"group g was not Stable with 1 member(s)", `state "Empty", 0 member(s)`},
		{"nothing read yet", broker.Group{}, 2, false,
			"group g was not Stable with 2 member(s)", `state "", 0 member(s)`},
	} {
		r := readiness("g", tc.g, tc.consumers)
		if r.Ready != tc.ready || r.Unmet != tc.unmet || r.Saw != tc.saw {
			t.Errorf("%s: got %+v, want ready %v, %q, %q", tc.name, r, tc.ready, tc.unmet, tc.saw)
		}
	}
}
