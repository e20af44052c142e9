package broker

import (
	"strings"
	"time"
)

// Cap is one thing a broker does that a check may need.
type Cap uint

const (
	// Partitions: records go to ordered lanes the producer picks, and a
	// consumer acknowledges a lane by position, so one record it cannot
	// pass stops the records behind it (Kafka).
	Partitions Cap = 1 << iota
	// Rebalance: consumers share the lanes in a group, and a consumer
	// that leaves hands its lanes, with what it had not acknowledged, to
	// another (Kafka's consumer groups).
	Rebalance
	// Members: the broker lists the consumers reading the queue.
	Members
	// DedupWindow: the broker drops a record whose dedup id it saw within
	// a window (SQS FIFO's MessageDeduplicationId).
	DedupWindow
	// Visibility: a record received and not acknowledged within a timeout
	// is delivered again (SQS's visibility timeout).
	Visibility
	// DeadLetter: a record that fails too often is moved aside (an SQS
	// redrive policy, a RabbitMQ dead-letter exchange).
	DeadLetter
	// Requeue: the consumers share one queue, and what a consumer held
	// unacknowledged goes to another consumer of it the moment the first's
	// connection closes, marked redelivered (RabbitMQ); its Acked counts
	// those redeliveries (Redeliveries).
	Requeue
)

var capNames = []struct {
	c    Cap
	name string
}{
	{Partitions, "ordered partitions"},
	{Rebalance, "a consumer group that rebalances"},
	{Members, "a list of the queue's consumers"},
	{DedupWindow, "a deduplication window"},
	{Visibility, "a visibility timeout"},
	{DeadLetter, "a dead-letter queue"},
	{Requeue, "a queue that hands a dead consumer's unacknowledged records to another"},
}

func (c Cap) String() string {
	var out []string
	for _, n := range capNames {
		if c&n.c != 0 {
			out = append(out, n.name)
		}
	}
	return strings.Join(out, " and ")
}

// Either says c as alternatives, of which a check needs one ("ordered
// partitions or a dead-letter queue").
func (c Cap) Either() string {
	var out []string
	for _, n := range capNames {
		if c&n.c != 0 {
			out = append(out, n.name)
		}
	}
	return strings.Join(out, " or ")
}

// Caps is the set of what a broker does.
type Caps = Cap

// Lacks is what of need the broker does not do (0: nothing).
func (c Cap) Lacks(need Cap) Cap { return need &^ c }

// Deduper is what a broker with DedupWindow also implements: how long it
// drops a record whose dedup id it took before (SQS FIFO: 5 minutes). A
// copy it drops is answered to Produce like any record, with its
// original's At.
type Deduper interface {
	DedupWindow() time.Duration
}
