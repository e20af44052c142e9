package checks

import (
	"testing"

	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/faults"
)

// TestBrokerLackComesBeforeTheChecksOwnNeeds: on a broker that lacks what
// Q-rebalance needs, one instance is not the reason it is n/a: a second
// one would not make it apply.
func TestBrokerLackComesBeforeTheChecksOwnNeeds(t *testing.T) {
	e := queueEnv("b", broker.Visibility|broker.DeadLetter)
	e.Queue.Procs = []faults.Proc{nil}
	var reb *scenario.Check
	for _, c := range QueueChecks() {
		if c.ID == "Q-rebalance" {
			reb = c
		}
	}
	want := "needs ordered partitions and a consumer group that rebalances and a list of the queue's consumers, which broker b (consumer.broker) does not have"
	if got := scenario.NotApplicable(e, reb); got != want {
		t.Errorf("n/a %q, want %q", got, want)
	}
}
