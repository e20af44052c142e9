package checks

import (
	"context"
	"fmt"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// stamped is Q-dup's retry under content-based dedup (SQS FIFO with
// ContentBasedDeduplication): a producer that stamps each send with its
// time and sends no dedup id of its own gets a new body hash on its retry,
// so the queue stores the retry as a second message and delivers both. A
// consumer that dedups by the record's id credits once; one that trusts
// the queue's dedup, or dedups by a hash of the whole body, credits twice.
type stamped struct {
	orig, cp *scenario.QRecord
}

func newStamped(ctx context.Context, e *scenario.Env, t *scenario.T) *stamped {
	o, c := e.Queue.StampedPair(ctx, e, t)
	if o == nil {
		return nil
	}
	return &stamped{orig: o, cp: c}
}

// judge holds the pair's payment, once the queue was drained of both,
// against one credit, at once: a wait for the dedup window after it may
// end inconclusive, and a violation here must not wait on it. It returns
// what was sent and what the broker did, as the check's text says it;
// the broker's own answers are the evidence (a message id per stored
// message, the queue's counts once drained), never the consumer's word.
func (s *stamped) judge(ctx context.Context, e *scenario.Env, t *scenario.T) string {
	q := e.Queue
	said, stored := q.StampedWords(s.orig, s.cp)
	e.Logf("  %s: %s", s.cp, said)
	if !stored {
		t.Inconclusive("the broker stored a producer's retry whose body differs only by its send timestamp",
			"%s; does consumer.message's {{now_ns}} reach the body?", said)
		return "the copy whose body differs only by its send timestamp: " + said
	}
	at, err := q.Committed(ctx)
	if err != nil {
		t.Errorf("read %s's counts after the stamped copies: %v", q.Topic, err)
		return said
	}
	t.JudgeQueue(ctx, []*scenario.QRecord{s.orig, s.cp}, nil)
	return fmt.Sprintf("the copy whose body differs only by its send timestamp (%s, %s): %s; then %s %s",
		s.orig, s.cp, said, q.Words().Evidence, at)
}
