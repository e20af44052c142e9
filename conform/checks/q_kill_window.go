package checks

import (
	"context"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// inWorkKills is how many seeded kills Q-kill places inside a record's
// processing, after the kill that follows its first credit or commit.
const inWorkKills = 2

// killInWork SIGKILLs every consumer at seeded points inside a record's
// processing: a fraction (20-80 %, drawn from the seed) of seen, the time
// the first record took from its produce to its first credit or commit.
// A consumer that takes the record, marks it done and then credits it
// loses the credit to a kill there, which the kill after the credit never
// meets. Each kill waits first until the previous one's dead members left
// the group (on a broker that lists them; elsewhere until the broker says
// ready) and the group passed every record, so the record is read at once
// by a live member. It returns where each kill landed; a kill that found
// the group past the record already is logged, not counted.
func killInWork(ctx context.Context, e *scenario.Env, t *scenario.T, recs *[]*scenario.QRecord, seen time.Duration) ([]string, bool) {
	q := e.Queue
	w := q.Words()
	n := len(q.ConsumerProcs(e))
	if seen <= 0 {
		return nil, true
	}
	rng := e.Rand("Q-kill in processing")
	fracs := make([]float64, inWorkKills)
	for i := range fracs {
		fracs[i] = 0.2 + 0.6*rng.Float64()
		e.Logf("  Q-kill plan: kill %d inside a record's processing, %s after its produce (%.0f%% of the %s the first record took to be credited or %s)",
			i+1, time.Duration(fracs[i]*float64(seen)).Round(time.Millisecond), 100*fracs[i], seen.Round(time.Millisecond), w.Done)
	}
	var landed []string
	for i, f := range fracs {
		if !q.RequireCommitted(ctx, t, *recs, scenario.RedeliveryWait(e)) {
			return nil, false
		}
		old, ok := waitBack(ctx, e, t, n)
		if !ok {
			return nil, false
		}
		r := scenario.NewQRecord(ctx, e, t)
		if r == nil {
			return nil, false
		}
		if err := q.Produce(ctx, e, r); err != nil {
			t.Errorf("%v", err)
			return nil, false
		}
		*recs = append(*recs, r)
		d := time.Duration(f * float64(seen))
		_ = scenario.SleepCtx(ctx, d)
		credited, passed, ok := q.State(ctx, e, r)
		start := history.Now()
		if !killAll(t, q.ConsumerProcs(e)) || !q.RestartAll(ctx, e, t) {
			return nil, false
		}
		where := fmt.Sprintf("kill %d, %s after the broker stored %s", i+1, d.Round(time.Millisecond), r)
		switch {
		case !ok:
			where += ": its credit and commit could not be read just before"
		case passed:
			where += fmt.Sprintf(": %s had %s it already", w.Who, w.Past)
		case credited:
			where += ": after its credit, before its " + w.Ack
			landed = append(landed, where)
		default:
			where += ", with neither its credit nor its " + w.Ack + " visible just before: inside its processing"
			landed = append(landed, where)
		}
		e.Logf("  %s", where)
		e.NoteFault("SIGKILL every consumer inside a record's processing: "+where, start, history.Now())
		// The dead members hold their partitions until their session times
		// out: the next kill waits for them to be gone. A broker that lists
		// no members redelivers what the dead held on its own clock (SQS:
		// the visibility timeout), which the next RequireCommitted waits out.
		if q.Caps&broker.Members == 0 {
			continue
		}
		if _, ok := q.WaitGone(ctx, n, old, scenario.RedeliveryWait(e)); !ok {
			t.Inconclusive(fmt.Sprintf("the killed members of group %s were still there after %s", q.Group, scenario.RedeliveryWait(e)),
				"does the consumer's session time out within a minute?")
			return nil, false
		}
	}
	return landed, true
}

// waitBack waits until the consumers are back after a kill: on a broker
// that lists its members, until the group has one per instance again
// (returned, the old members to wait out after the next kill); elsewhere
// until the broker says ready (broker.Ready).
func waitBack(ctx context.Context, e *scenario.Env, t *scenario.T, n int) ([]string, bool) {
	q := e.Queue
	if q.Caps&broker.Members == 0 {
		return nil, q.RequireReady(ctx, e, t)
	}
	old, ok := q.WaitGone(ctx, n, nil, scenario.RedeliveryWait(e))
	if !ok {
		t.Inconclusive(fmt.Sprintf("group %s did not get back to %d member(s) within %s (members %v)", q.Group, n, scenario.RedeliveryWait(e), old),
			"does each restarted instance rejoin the group named by $%s?", q.Cfg.Env.Group)
	}
	return old, ok
}
