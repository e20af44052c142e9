package checks

import (
	"context"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/faults"
)

// visTries bounds the records Q-visibility sends to freeze the consumer
// that holds one: SQS does not say which consumer received a message, so
// the instances are frozen in turn, each twice in a row (freezeOrder).
const visTries = 4

// freezeOrder is the instance frozen at try: 0, 0, 1, 1, ... A consumer
// thawed from a freeze often holds the next message (its receive was
// waiting on the broker first), so strict turns would freeze the other
// one every time; twice in a row lands on it.
func freezeOrder(try, n int) int { return (try / 2) % n }

// visMargin is waited past the visibility timeout before a record counts
// as received again: the broker measures the timeout on its own clock.
const visMargin = 500 * time.Millisecond

// needsQVisibility: the broker delivers a record again once its
// visibility timeout ends, and says how long that is (broker.Visibler),
// and how many records are in flight (broker.Receiving on its Acked).
const needsQVisibility = broker.Visibility

// NeedQueuePause: Q-visibility freezes one consumer (SIGSTOP) while
// another must receive the record again.
func NeedQueuePause(e *scenario.Env) string {
	procs := e.Queue.ConsumerProcs(e)
	switch {
	case len(procs) < 2:
		return "needs target.instances 2 or more: a second consumer must receive the record while the first, frozen, still holds it"
	case !faults.CanPause(procs[0]):
		return "needs consumer processes idemcheck can freeze (SIGSTOP)"
	}
	return ""
}

// runQVisibility: a consumer frozen (SIGSTOP) while it holds a received
// record, for longer than the broker's visibility timeout, so the broker
// delivers the record again to another consumer while the first still
// works on it (before its credit, or after it and before its
// acknowledgement); the first is then thawed and finishes. The instances
// are frozen in turn until one freeze lands on the holder: the record was
// in flight just before the freeze and not yet acknowledged just after,
// and no credit or acknowledgement came within the visibility timeout,
// then the record was received again or acknowledged by another while the
// first stayed frozen. A freeze of the consumer that did not hold it is
// logged and not counted.
func runQVisibility(ctx context.Context, e *scenario.Env, t *scenario.T) {
	q := e.Queue
	if !q.RequireReady(ctx, e, t) {
		return
	}
	v, ok := q.Broker.(broker.Visibler)
	if !ok || v.VisibilityTimeout() <= 0 {
		t.Inconclusive("the broker said its visibility timeout", "broker %s does not say how long it is", q.Cfg.Broker)
		return
	}
	vis := v.VisibilityTimeout()
	procs := q.ConsumerProcs(e)
	var recs []*scenario.QRecord
	landed := ""
	for try := 0; try < visTries && landed == ""; try++ {
		if try > 0 && !q.RequireCommitted(ctx, t, recs, scenario.RedeliveryWait(e)) {
			return
		}
		r := scenario.NewQRecord(ctx, e, t)
		if r == nil {
			return
		}
		if err := q.Produce(ctx, e, r); err != nil {
			t.Errorf("%v", err)
			return
		}
		recs = append(recs, r)
		i := freezeOrder(try, len(procs))
		word, counted, ok := freezeHolder(ctx, e, t, r, i, vis)
		if !ok {
			return
		}
		e.Logf("  %s", word)
		if counted {
			landed = word
		}
	}
	if landed == "" {
		t.Inconclusive(fmt.Sprintf("none of %d freezes, one instance at a time, held a record past the %s visibility timeout while it was received and not acknowledged", visTries, vis),
			"the consumer acknowledges at once after receiving, or another instance took each record first")
	}
	if !q.RequireCommitted(ctx, t, recs, scenario.RedeliveryWait(e)) {
		return
	}
	t.JudgeQueue(ctx, recs, nil)
	w := q.Words()
	t.Passf("%s; thawed, %s %s all %d record(s)", landed, w.Who, w.Past, len(recs))
}

// freezeHolder waits until r is received, freezes instance i, holds it
// frozen past the visibility timeout until r is received again or
// acknowledged by another consumer (bounded), and thaws it. It returns
// where the freeze landed and whether that counts.
func freezeHolder(ctx context.Context, e *scenario.Env, t *scenario.T, r *scenario.QRecord, i int, vis time.Duration) (where string, counted, ok bool) {
	q := e.Queue
	w := q.Words()
	switch waitReceiving(ctx, e, r) {
	case gone:
		return fmt.Sprintf("%s was received and %s between two looks (%s apart): nothing to freeze, not counted", r, w.Done, scenario.PollEvery), false, true
	case never:
		t.Inconclusive(fmt.Sprintf("record %s was never received within %s", r, e.Cfg.ConvergeD()), "%s", q.ConsumeHint())
		return "", false, false
	}
	p := q.ConsumerProcs(e)[i]
	start := history.Now()
	frozeAt := time.Now()
	if err := p.Pause(); err != nil {
		t.Errorf("freeze instance %d: %v", i, err)
		return "", false, false
	}
	credited, passed, _ := q.State(ctx, e, r)
	switch seen := ""; {
	case passed:
		where = fmt.Sprintf("instance %d frozen after %s had %s %s already: not counted", i, w.Who, w.Past, r)
	default:
		seen = holdFrozen(ctx, e, r, frozeAt, vis, credited)
		switch seen {
		case "":
			where = fmt.Sprintf("instance %d frozen with %s received, but nothing changed within %s: not counted", i, r, vis+e.Cfg.ConvergeD())
		case "early":
			where = fmt.Sprintf("instance %d frozen, but %s was credited or %s within the %s visibility timeout: another instance held it, not counted", i, r, w.Done, vis)
		default:
			at := "before its credit was visible"
			if credited {
				at = "after its credit, before its " + w.Ack
			}
			where, counted = fmt.Sprintf("instance %d frozen holding %s %s, past the %s visibility timeout: %s while it stayed frozen", i, r, at, vis, seen), true
		}
	}
	if err := p.Resume(); err != nil {
		t.Errorf("thaw instance %d: %v", i, err)
		return "", false, false
	}
	e.NoteFault(fmt.Sprintf("SIGSTOP instance %d past the visibility timeout", i), start, history.Now())
	return where, counted, true
}

// What waitReceiving saw of a record.
const (
	received = iota // in flight
	gone            // acknowledged without being seen in flight
	never           // neither, within converge_within
)

// waitReceiving waits, bounded by converge_within, until the broker counts
// r (the only record not acknowledged) in flight, or r is acknowledged.
func waitReceiving(ctx context.Context, e *scenario.Env, r *scenario.QRecord) int {
	deadline := time.Now().Add(e.Cfg.ConvergeD())
	for {
		if a, err := e.Queue.Committed(ctx); err == nil {
			if rc, ok := a.(broker.Receiving); ok && rc.Receiving() > 0 {
				return received
			}
			if a.Passed(r.Pos()) {
				return gone
			}
		}
		if time.Now().After(deadline) || scenario.SleepCtx(ctx, scenario.PollEvery) != nil {
			return never
		}
	}
}

// holdFrozen watches r while a consumer is frozen (credited0: r was
// credited when it froze): "early" if r was newly credited or
// acknowledged before the visibility timeout ended (another consumer held
// it); after the timeout, what shows that another consumer took it again
// (acknowledged it, credited it, or holds it received); "" if nothing
// within converge_within.
func holdFrozen(ctx context.Context, e *scenario.Env, r *scenario.QRecord, frozeAt time.Time, vis time.Duration, credited0 bool) string {
	q := e.Queue
	w := q.Words()
	expired := frozeAt.Add(vis + visMargin)
	deadline := expired.Add(e.Cfg.ConvergeD())
	for {
		credited, passed, ok := q.State(ctx, e, r)
		credited = credited && !credited0
		now := time.Now()
		switch {
		case !ok:
		case (credited || passed) && now.Before(frozeAt.Add(vis)):
			return "early"
		case now.After(expired) && passed:
			return fmt.Sprintf("%s %s it", w.Who, w.Past)
		case now.After(expired) && credited:
			return "it was credited by another consumer"
		case now.After(expired):
			if a, err := q.Committed(ctx); err == nil {
				if rc, ok := a.(broker.Receiving); ok && rc.Receiving() > 0 {
					return "another consumer received it again"
				}
			}
		}
		if now.After(deadline) || scenario.SleepCtx(ctx, scenario.PollEvery) != nil {
			return ""
		}
	}
}
