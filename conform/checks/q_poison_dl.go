package checks

import (
	"context"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// runQPoisonDL is Q-poison on a broker that moves a record aside after it
// failed too often (broker.DeadLetter) and has no partitions: the poison
// is produced between good records, and the queue must drain of all of
// them, the good ones each credited once. The poison either ends in the
// dead-letter queue (the consumer left it, and the broker moved it after
// its receive count) or was deleted by the consumer; the pass line says
// which, from the broker's count. A consumer that stops at the poison
// leaves the records behind it in the queue, never credited.
func runQPoisonDL(ctx context.Context, e *scenario.Env, t *scenario.T) {
	q := e.Queue
	w := q.Words()
	before, after, ok := poisonNeighbours(ctx, e, t)
	if !ok {
		return
	}
	poison := scenario.PoisonRecord(e, 0)
	recs := append(append(append([]*scenario.QRecord{}, before...), poison), after...)
	if err := q.Produce(ctx, e, recs...); err != nil {
		t.Errorf("%v", err)
		return
	}
	bound := e.Cfg.ConvergeD() + deadLetterAfter(q.Broker)
	left, at := q.WaitCommitted(ctx, recs, bound)
	if len(left) > 0 && !q.WaitCredited(ctx, e, before) {
		t.Inconclusive(fmt.Sprintf("none of the %d records before the poison was credited within %s (%s %s)", len(before), e.Cfg.ConvergeD(), w.Evidence, scenario.OffsetsWords(at)),
			"%s", q.ConsumeHint())
		return
	}
	stuck := func(*scenario.QRecord) string {
		if len(left) == 0 {
			return ""
		}
		return poisonStuckDL(poison.Place(), w, scenario.OffsetsWords(at), bound)
	}
	t.JudgeQueue(ctx, recs, stuck)
	if len(left) > 0 && !t.Failed() {
		t.Inconclusive(fmt.Sprintf("%s never %s %v within %s (%s %s)", w.Named, w.Past, left, bound, w.Evidence, scenario.OffsetsWords(at)), "")
		return
	}
	if t.Failed() {
		return
	}
	t.Passf("%s", poisonPassedDL(len(before), q.Cfg.Poison, poison.Place(), len(after), w, at))
}

// poisonNeighbours are the good records before and after the poison.
func poisonNeighbours(ctx context.Context, e *scenario.Env, t *scenario.T) (before, after []*scenario.QRecord, ok bool) {
	for i := 0; i < 5; i++ {
		r := scenario.NewQRecord(ctx, e, t)
		if r == nil {
			return nil, nil, false
		}
		if i < 2 {
			before = append(before, r)
		} else {
			after = append(after, r)
		}
	}
	return before, after, true
}

// deadLetterAfter is how long the broker takes, at most, to move a record
// its consumer keeps failing aside (broker.Redriver), 0 when it does not say.
func deadLetterAfter(b broker.Broker) time.Duration {
	if r, ok := b.(broker.Redriver); ok {
		return r.DeadLetterAfter()
	}
	return 0
}

// poisonStuckDL is why a record was never credited while the queue still
// held records: the consumer stopped at the poison, which therefore never
// reached the dead-letter queue.
func poisonStuckDL(poison broker.Place, w broker.Words, evidence string, d time.Duration) string {
	return fmt.Sprintf("it was produced with the poison record (%s) and %s never %s it: %s %s after %s, the consumer stopped at the poison", poison.Long, w.Who, w.Past, w.Evidence, evidence, d)
}

// poisonPassedDL is Q-poison's pass line on a broker with a dead-letter
// queue: where the poison ended, by the broker's count.
func poisonPassedDL(before int, poison string, at broker.Place, after int, w broker.Words, acked broker.Acked) string {
	end := "the broker does not count its dead-letter queue"
	if d, ok := acked.(broker.DeadLetters); ok {
		switch n := d.DeadLettered(); n {
		case 0:
			end = "the dead-letter queue is empty: the consumer deleted the poison itself"
		default:
			end = fmt.Sprintf("the poison ended in the dead-letter queue (%d message(s) there)", n)
		}
	}
	return fmt.Sprintf("%d good records, the poison (%q at %s), %d more; %s %s all; %s", before, poison, at.Long, after, w.Who, w.Past, end)
}
