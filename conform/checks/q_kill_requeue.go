package checks

import (
	"context"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// killOneHolding is Q-kill's second consumer, on a broker whose consumers
// share one queue and get what a dead one held (broker.Requeue: RabbitMQ),
// with two or more instances: one record per instance is produced, and
// once every one is credited, instance 0 alone is SIGKILLed. The broker
// hands what it held credited and unacknowledged, marked redelivered, to
// a live instance, which must not credit it again: a dedup kept in one
// process's memory does not know what another credited. Instance 0 is
// restarted only once every message is acknowledged, so the live ones took
// the redelivery. The broker's evidence is its redeliver counter grown past
// a reading that covered every earlier message, and every message
// acknowledged; a kill after which the broker redelivered nothing (the
// killed instance had acknowledged its record, or held none) is tried
// again, then inconclusive. It returns where the kill landed ("": the
// broker or the instances do not make this part).
func killOneHolding(ctx context.Context, e *scenario.Env, t *scenario.T, recs *[]*scenario.QRecord) (string, bool) {
	q := e.Queue
	procs := q.ConsumerProcs(e)
	if q.Caps&broker.Requeue == 0 || len(procs) < 2 {
		return "", true
	}
	w := q.Words()
	for try := 0; try < killTries; try++ {
		if !q.RequireCommitted(ctx, t, *recs, scenario.RedeliveryWait(e)) || !q.RequireReady(ctx, e, t) {
			return "", false
		}
		before, ok := redeliveries(ctx, e, t)
		if !ok {
			return "", false
		}
		wave := make([]*scenario.QRecord, len(procs))
		for i := range wave {
			if wave[i] = scenario.NewQRecord(ctx, e, t); wave[i] == nil {
				return "", false
			}
		}
		if err := q.Produce(ctx, e, wave...); err != nil {
			t.Errorf("%v", err)
			return "", false
		}
		*recs = append(*recs, wave...)
		if !allCredited(ctx, e, wave) {
			t.Inconclusive(fmt.Sprintf("the %d records produced for the instances were not all credited within %s", len(wave), e.Cfg.ConvergeD()), "%s", q.ConsumeHint())
			return "", false
		}
		start := history.Now()
		if err := procs[0].Kill(); err != nil {
			t.Errorf("kill instance 0: %v", err)
			return "", false
		}
		// The live instances take what instance 0 held; it comes back
		// only once they acknowledged everything.
		if !q.RequireCommitted(ctx, t, *recs, scenario.RedeliveryWait(e)) {
			return "", false
		}
		after, ok := redeliveries(ctx, e, t)
		if !ok {
			return "", false
		}
		if err := procs[0].Restart(ctx); err != nil {
			t.Errorf("restart instance 0: %v", err)
			return "", false
		}
		if err := q.AwaitReady(ctx, e, 0); err != nil {
			t.Errorf("instance 0 did not come back after the kill: %v", err)
			return "", false
		}
		at, _ := q.Committed(ctx)
		if after.n == before.n {
			e.Logf("  instance 0 of %d SIGKILLed with %v credited: the broker redelivered nothing (redeliver counter %d), so it held none unacknowledged", len(procs), wave, after.n)
			e.NoteFault(fmt.Sprintf("SIGKILL consumer instance 0 of %d with %v credited: nothing redelivered", len(procs), wave), start, history.Now())
			continue
		}
		landed := fmt.Sprintf("instance 0 of %d SIGKILLed alone with %v all credited: the broker redelivered %d message(s) it held before their %s (redeliver counter %d, then %d) to the live instance(s), and %s %s every message (%s %s); instance 0 restarted after",
			len(procs), wave, after.n-before.n, w.Ack, before.n, after.n, w.Who, w.Past, w.Evidence, scenario.OffsetsWords(at))
		e.Logf("  %s", landed)
		e.NoteFault("SIGKILL one consumer instance holding credited records: "+landed, start, history.Now())
		return landed, true
	}
	t.Inconclusive(fmt.Sprintf("in %d tries, instance 0 of %d SIGKILLed once every record was credited never held one unacknowledged: the broker redelivered nothing to the live instances", killTries, len(procs)),
		"the consumer %s at once after each credit; Q-kill cannot place a kill between the two", w.Acks)
	return "", false
}

// counter is one complete reading of the broker's redeliver counter.
type counter struct{ n int64 }

// redeliveries reads the broker's redeliver counter once its reading
// covers every message published (broker.Redeliveries): a reading that
// lags could miss a redelivery and make a later one look new.
func redeliveries(ctx context.Context, e *scenario.Env, t *scenario.T) (counter, bool) {
	q := e.Queue
	deadline := time.Now().Add(scenario.RedeliveryWait(e))
	last := "nothing read"
	for {
		at, err := q.Committed(ctx)
		if err == nil {
			r, ok := at.(broker.Redeliveries)
			if !ok {
				t.Errorf("broker %s declares Requeue but does not count its redeliveries (broker.Redeliveries)", q.Cfg.Broker)
				return counter{}, false
			}
			if n, complete := r.Redeliveries(); complete {
				return counter{n}, true
			}
			last = at.String()
		}
		if time.Now().After(deadline) || scenario.SleepCtx(ctx, 100*time.Millisecond) != nil {
			t.Inconclusive(fmt.Sprintf("the broker's counters never covered every message within %s (%s)", scenario.RedeliveryWait(e), last), "")
			return counter{}, false
		}
	}
}

// allCredited polls, bounded by converge_within, until every record of
// recs has a credit.
func allCredited(ctx context.Context, e *scenario.Env, recs []*scenario.QRecord) bool {
	deadline := time.Now().Add(e.Cfg.ConvergeD())
	for {
		cr, _, ok := e.Queue.Progress(ctx, e, recs)
		n := 0
		for _, r := range recs {
			if cr[r] {
				n++
			}
		}
		if ok && n == len(recs) {
			return true
		}
		if time.Now().After(deadline) || scenario.SleepCtx(ctx, scenario.PollEvery) != nil {
			return false
		}
	}
}
