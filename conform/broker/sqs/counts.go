package sqs

import (
	"context"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/idemcheck/idemcheck/conform/broker"
)

// Counts is the evidence SQS gives without receiving: how many messages
// the run's queue holds visible, in flight (received, not deleted, their
// visibility not ended) and delayed, and how many its dead-letter queue
// holds. SQS keeps no per-message acknowledged state, so the queue's
// acknowledgement of a record is the queue holding none: a check asks
// whether all it produced was taken off the queue (deleted by a consumer,
// or moved to the dead-letter queue, which Dead counts). SQS calls these
// counts approximate; ElasticMQ's are exact.
type Counts struct {
	Queue, DeadLetter          string
	Visible, InFlight, Delayed int64
	Dead                       int64
}

// Held is what the queue still holds, in any state.
func (c Counts) Held() int64 { return c.Visible + c.InFlight + c.Delayed }

// Passed: the queue holds nothing, so no record produced to it is left.
func (c Counts) Passed(broker.Pos) bool { return c.Held() == 0 }

func (c Counts) DeadLettered() int64 { return c.Dead }

func (c Counts) String() string {
	return fmt.Sprintf("queue %s held %d visible, %d in flight, %d delayed; dead-letter queue %s held %d",
		c.Queue, c.Visible, c.InFlight, c.Delayed, c.DeadLetter, c.Dead)
}

var countNames = []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages,
	types.QueueAttributeNameApproximateNumberOfMessagesNotVisible, types.QueueAttributeNameApproximateNumberOfMessagesDelayed}

// count reads one queue's three counts.
func (q *SQS) count(ctx context.Context, url string) (visible, inFlight, delayed int64, err error) {
	out, err := q.cl.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url), AttributeNames: countNames})
	if err != nil {
		return 0, 0, 0, err
	}
	var n [3]int64
	for i, a := range countNames {
		v, ok := out.Attributes[string(a)]
		if n[i], err = strconv.ParseInt(v, 10, 64); !ok || err != nil {
			return 0, 0, 0, fmt.Errorf("queue %s answered %s %q", url, a, v)
		}
	}
	return n[0], n[1], n[2], nil
}

// Acked reads the queue's counts and its dead-letter queue's.
func (q *SQS) Acked(ctx context.Context) (broker.Acked, error) {
	c := Counts{Queue: q.name, DeadLetter: q.dlName}
	var err error
	if c.Visible, c.InFlight, c.Delayed, err = q.count(ctx, q.url); err != nil {
		return nil, err
	}
	v, f, d, err := q.count(ctx, q.dlURL)
	if err != nil {
		return nil, err
	}
	c.Dead = v + f + d
	return c, nil
}

// Ready: the queue holds nothing. SQS shows no consumers, so no reading
// can say they are receiving before a record is sent: each check proves
// that by requiring its records taken off the queue and credited. What
// readiness can say is that the queue holds no message of an earlier
// check (redelivered after a kill, waiting out a visibility timeout): the
// counts a check then reads are its own records'.
func (q *SQS) Ready(ctx context.Context, _ int) (broker.Readiness, error) {
	a, err := q.Acked(ctx)
	r := broker.Readiness{Unmet: fmt.Sprintf("queue %s did not drain of earlier messages", q.name), Saw: "nothing read"}
	if err != nil {
		return r, err
	}
	c := a.(Counts)
	r.Ready, r.Saw = c.Held() == 0, c.String()
	return r, nil
}

// Receiving is the queue's messages in flight.
func (c Counts) Receiving() int64 { return c.InFlight }
