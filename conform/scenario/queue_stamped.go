package scenario

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/driver"
)

// ContentDedup says the run's queue derives a record's dedup id from its
// body when it is sent without one (SQS FIFO's content-based dedup).
func (q *Queue) ContentDedup() bool {
	return q.Cfg.ContentDedup && q.Caps&broker.DedupWindow != 0
}

// StampedPair is a payment's record and a producer's retry of it as a
// producer that stamps each send makes it: both sent without a dedup id,
// the retry's body its first's but for {{now_ns}}. A queue with
// content-based dedup hashes a body it has not seen and stores the retry
// as a new message, so only the consumer's own dedup stands between it
// and a second credit. nil, nil: the payment could not be made (said).
func (q *Queue) StampedPair(ctx context.Context, e *Env, t *T) (*QRecord, *QRecord) {
	r := NewQRecord(ctx, e, t)
	if r == nil {
		return nil, nil
	}
	r.dedup = ""
	c := CopyOf(r)
	c.vals = maps.Clone(r.vals)
	ns := time.Now().UnixNano()
	// Two stamps in one clock tick would make the bodies equal again.
	if old, _ := strconv.ParseInt(r.vals["now_ns"], 10, 64); ns <= old {
		ns = old + 1
	}
	c.vals["now_ns"] = fmt.Sprint(ns)
	c.key, c.value = driver.Fill(q.Cfg.Key, c.vals), driver.Fill(q.Cfg.Message, c.vals)
	return r, c
}

// StampedWords says what the broker did with a StampedPair, both produced,
// from its own answers to the sends: a new message id for the retry is the
// broker storing it as a second message. false: the broker answered the
// retry with its first's id, dropping it, so the consumer never met it.
// The words also become the retry's evidence in a finding.
func (q *Queue) StampedWords(orig, cp *QRecord) (string, bool) {
	if cp.id == orig.id {
		return fmt.Sprintf("the broker answered the copy whose body differs only by its send timestamp with its first copy's %s: it dropped it as a duplicate", orig.Place().Long), false
	}
	cp.dupNote = fmt.Sprintf("the same key and body but for its send timestamp (now_ns %s, the first's %s), re-produced without a dedup id under content-based dedup: the broker stored it as a second message (%s; the first's %s)",
		cp.vals["now_ns"], orig.vals["now_ns"], cp.Place().Long, orig.Place().Long)
	return cp.dupNote, true
}
