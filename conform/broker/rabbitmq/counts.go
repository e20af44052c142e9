package rabbitmq

import (
	"context"
	"fmt"

	"github.com/idemcheck/idemcheck/conform/broker"
)

// Counts is the broker's evidence of what the run's consumers did with
// the messages idemcheck published (Produced, each confirmed):
//   - Ready, Consumers and Dead are live, from passive declares of the
//     queue and the dead-letter queue (the queue process answers them);
//   - Acked and Redelivered are the queue's acknowledgement and redelivery
//     counters from the management API, which lag by the broker's
//     statistics interval but only grow.
//
// AMQP counts no unacknowledged message, so a record is acknowledged by
// the broker's word only when Acked and Dead cover every message
// published; or when no consumer is left on the queue and none is ready,
// since RabbitMQ requeues what a consumer held when its channel closes.
// Both say so of the run's whole queue, never of one message: a check
// asks whether everything it published was taken off the queue.
type Counts struct {
	Queue, DeadLetter string
	Produced          int64
	Ready, Consumers  int64
	Acked, Dead       int64
	Redelivered       int64
}

// Passed: every message published is acknowledged or dead-lettered.
func (c Counts) Passed(broker.Pos) bool {
	return c.Acked+c.Dead >= c.Produced || c.Consumers == 0 && c.Ready == 0
}

func (c Counts) DeadLettered() int64 { return c.Dead }

// Redeliveries: the queue's redeliver counter, complete when its ack
// counter, read with it from one sample of the queue's statistics, covers
// every message published.
func (c Counts) Redeliveries() (int64, bool) { return c.Redelivered, c.Acked+c.Dead >= c.Produced }

func (c Counts) String() string {
	return fmt.Sprintf("%d of %d message(s) acknowledged, %d redelivery(ies), %d ready in queue %s with %d consumer(s); dead-letter queue %s held %d",
		min(c.Acked, c.Produced), c.Produced, c.Redelivered, c.Ready, c.Queue, c.Consumers, c.DeadLetter, c.Dead)
}

// declared reads a queue's ready messages and consumers by a passive
// declare, on a channel of its own (a channel closes on any error).
func (r *RabbitMQ) declared(name string) (ready, consumers int64, err error) {
	ch, err := r.conn.Channel()
	if err != nil {
		return 0, 0, err
	}
	defer ch.Close()
	q, err := ch.QueueDeclarePassive(name, true, false, false, false, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("passive declare of %s: %w", name, err)
	}
	return int64(q.Messages), int64(q.Consumers), nil
}

// Acked reads the counts: the counters first, so that the
// live counts read after it are never older than it.
func (r *RabbitMQ) Acked(ctx context.Context) (broker.Acked, error) {
	r.mu.Lock()
	c := Counts{Queue: r.queue, DeadLetter: r.dlq, Produced: r.produced}
	r.mu.Unlock()
	var err error
	if c.Acked, c.Redelivered, err = r.mgmt.queueStats(ctx, r.queue); err != nil {
		return nil, err
	}
	if c.Ready, c.Consumers, err = r.declared(r.queue); err != nil {
		return nil, err
	}
	if c.Dead, _, err = r.declared(r.dlq); err != nil {
		return nil, err
	}
	return c, nil
}

// Ready: the queue has one consumer per consumer process (some consumer
// when idemcheck does not own the processes), and every message an
// earlier check published is acknowledged or dead-lettered, so the counts
// a check then reads are its own records'.
func (r *RabbitMQ) Ready(ctx context.Context, consumers int) (broker.Readiness, error) {
	n := max(consumers, 1)
	rd := broker.Readiness{Unmet: fmt.Sprintf("queue %s did not have %d consumer(s) with every earlier message acknowledged", r.queue, n), Saw: "nothing read"}
	a, err := r.Acked(ctx)
	if err != nil {
		return rd, err
	}
	c := a.(Counts)
	rd.Saw = c.String()
	rd.Ready = readyOf(c, consumers)
	return rd, nil
}

func readyOf(c Counts, consumers int) bool {
	have := c.Consumers == int64(max(consumers, 1)) || consumers == 0 && c.Consumers > 0
	return have && c.Acked+c.Dead >= c.Produced
}
