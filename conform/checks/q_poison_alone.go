package checks

import (
	"context"
	"fmt"

	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// oneConsumer leaves one instance consuming for Q-poison on a broker whose
// consumers share one queue (broker.Requeue): with two, the instance that
// requeues the poison forever holds only the poison, and the records
// behind it pass to the other, so a consumer that stops at a poison would
// pass. The others are SIGKILLed (the queue drained, they hold nothing)
// and restarted by restore once the check is judged. It returns what it
// did, for the pass line ("": nothing, one instance or another broker).
func oneConsumer(ctx context.Context, e *scenario.Env, t *scenario.T) (string, func(), bool) {
	q := e.Queue
	procs := q.ConsumerProcs(e)
	if q.Caps&broker.Requeue == 0 || len(procs) < 2 {
		return "", func() {}, true
	}
	var killed []int
	restore := func() {
		for _, i := range killed {
			if err := procs[i].Restart(ctx); err != nil {
				t.Errorf("restart instance %d after Q-poison: %v", i, err)
				return
			}
			if err := q.AwaitReady(ctx, e, i); err != nil {
				t.Errorf("instance %d did not come back after Q-poison: %v", i, err)
				return
			}
		}
	}
	for i := 1; i < len(procs); i++ {
		if err := procs[i].Kill(); err != nil {
			t.Errorf("kill instance %d: %v", i, err)
			return "", restore, false
		}
		killed = append(killed, i)
	}
	if !q.RequireReadyOf(ctx, e, t, 1) {
		return "", restore, false
	}
	said := fmt.Sprintf("run with instance 0 alone (the other %d SIGKILLed before and restarted after): with a second consumer on the queue the records behind a poison requeued forever pass to it, and a consumer that stops at the poison would pass", len(procs)-1)
	e.Logf("  Q-poison %s", said)
	return said, restore, true
}
