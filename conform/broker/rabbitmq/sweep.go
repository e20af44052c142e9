package rabbitmq

import (
	"context"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/conform/broker"
)

// sweepStale deletes the queues (and dead-letter exchanges) that runs of
// this config left on the user's broker when they were SIGKILLed, and so
// never deleted: those named by one of tmpls, started over
// broker.StaleAfter ago, with no consumer (one with a consumer is some
// run's still, not ours to sweep). What it cannot delete it says, and the
// run goes on.
func (r *RabbitMQ) sweepStale(ctx context.Context, tmpls []string, now time.Time) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	qs, err := r.mgmt.queues(ctx)
	if err != nil {
		fmt.Fprintf(r.log, "idemcheck run: list queues to sweep stale runs: %v\n", err)
		return
	}
	for _, q := range staleQueues(qs, tmpls, now) {
		fmt.Fprintf(r.log, "idemcheck run: sweeping queue %s, left by a run that did not end cleanly\n", q.name)
		r.dropStale(q.name, q.deadLetter)
	}
}

// stale is a queue a stale run left; deadLetter: made by the dead-letter
// template (tmpls[1]), its exchange of the same name goes with it.
type stale struct {
	name       string
	deadLetter bool
}

// staleQueues are the queues of qs a stale run of tmpls left, unconsumed.
func staleQueues(qs []queueInfo, tmpls []string, now time.Time) []stale {
	var out []stale
	for _, q := range qs {
		for i, t := range tmpls {
			if _, ok := broker.StaleRun(q.Name, t, now); ok && q.Consumers == 0 {
				out = append(out, stale{q.Name, i == 1})
				break
			}
		}
	}
	return out
}

// dropStale deletes one queue, and the exchange of its name when it is a
// dead-letter queue.
func (r *RabbitMQ) dropStale(name string, exchange bool) {
	ch, err := r.conn.Channel()
	if err == nil {
		_, err = ch.QueueDelete(name, false, false, false)
		_ = ch.Close()
	}
	if err == nil && exchange {
		if ch, err = r.conn.Channel(); err == nil {
			err = ch.ExchangeDelete(name, false, false)
			_ = ch.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(r.log, "idemcheck run: delete %s: %v\n", name, err)
	}
}
