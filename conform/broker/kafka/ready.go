package kafka

import (
	"context"
	"fmt"

	"github.com/idemcheck/idemcheck/conform/broker"
)

// Ready: the group is Stable (its rebalance done, the leader's assignment
// in force) with one member per consumer process, or with some member
// when idemcheck does not own the processes.
func (k *Kafka) Ready(ctx context.Context, consumers int) (broker.Readiness, error) {
	g, err := k.Group(ctx)
	if err != nil {
		return readiness(k.where.Group, broker.Group{}, consumers), err
	}
	return readiness(k.where.Group, g, consumers), nil
}

// readiness judges one reading of the group; an empty Group is what the
// words say before any reading succeeded.
func readiness(group string, g broker.Group, consumers int) broker.Readiness {
	n := max(consumers, 1)
	count := len(g.Members)
	return broker.Readiness{
		Ready: g.Stable && (count == n || consumers == 0 && count > 0),
		Unmet: fmt.Sprintf("group %s was not Stable with %d member(s)", group, n),
		Saw:   fmt.Sprintf("state %q, %d member(s)", g.State, count),
	}
}
