package checks

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/faults"
)

// killTries bounds the records Q-kill sends to land one kill in the window.
const killTries = 3

// runQKill: every consumer process SIGKILLed the moment one record's
// credit appears, or its offset commit, whichever comes first, then
// restarted. Killed after the credit and before the commit, the broker
// redelivers (a dedup kept in memory credits again); killed after the
// commit and before the credit, the record is never delivered again.
// Then killed again at seeded points inside a record's processing, before
// either shows (q_kill_window.go): a consumer that marks a record done
// before its credit is durable loses the credit there. On a broker whose
// consumers share one queue, one instance is then killed alone while it
// holds a credited record, which a live one gets (q_kill_requeue.go).
func runQKill(ctx context.Context, e *scenario.Env, t *scenario.T) {
	q := e.Queue
	if !q.RequireReady(ctx, e, t) {
		return
	}
	if len(q.Points) > 0 {
		runQKillAt(ctx, e, t)
		return
	}
	w := q.Words()
	var recs []*scenario.QRecord
	landed := ""
	var seen time.Duration // from a record's produce to its first credit or commit
	for try := 0; try < killTries && landed == ""; try++ {
		r := scenario.NewQRecord(ctx, e, t)
		if r == nil {
			return
		}
		if err := q.Produce(ctx, e, r); err != nil {
			t.Errorf("%v", err)
			return
		}
		recs = append(recs, r)
		produced := time.Now()
		credited, passed, ok := q.FirstOf(ctx, e, r)
		seen = time.Since(produced)
		if !ok {
			t.Inconclusive(fmt.Sprintf("record %s was neither credited nor %s within %s", r, w.Done, e.Cfg.ConvergeD()), "%s", q.ConsumeHint())
			return
		}
		start := history.Now()
		if !killAll(t, q.ConsumerProcs(e)) {
			return
		}
		// What the broker and the ledger hold once every process is dead is
		// where the kill really landed.
		credited2, passed2, read := q.Landed(ctx, e, r)
		credited, passed = credited || credited2, passed || passed2
		if !q.RestartAll(ctx, e, t) {
			return
		}
		switch {
		case !read:
			// Where the kill landed is unknown: it is not counted.
			e.Logf("  %s: the broker's committed offsets could not be read once every consumer was dead: the kill is not counted", r)
		case credited && passed:
			e.Logf("  %s was credited and %s within %s: the kill came after both", r, w.Done, scenario.PollEvery)
		case credited:
			landed = fmt.Sprintf("killed after the credit of %s, before its %s", r, w.Ack)
		default:
			landed = fmt.Sprintf("killed after %s %s, before its credit", w.AckOf, r)
		}
		e.NoteFault("SIGKILL every consumer: "+landed, start, history.Now())
	}
	inWork, ok := killInWork(ctx, e, t, &recs, seen)
	if !ok {
		return
	}
	alone, ok := killOneHolding(ctx, e, t, &recs)
	if !ok {
		return
	}
	var where []string
	if landed != "" {
		where = append(where, landed)
	}
	where = append(where, inWork...)
	if alone != "" {
		where = append(where, alone)
	}
	if len(where) == 0 {
		t.Inconclusive(fmt.Sprintf("each of %d records was credited and %s within one %s look, and each seeded kill inside a record's processing found it credited or %s already: no kill landed inside a record's processing", killTries, w.Done, scenario.PollEvery, w.Done),
			"the consumer %s at once after each credit; Q-kill cannot place a kill between the two", w.Acks)
	}
	if !q.RequireCommitted(ctx, t, recs, scenario.RedeliveryWait(e)) {
		return
	}
	t.JudgeQueue(ctx, recs, nil)
	t.Passf("%s; %d instance(s) restarted after each kill, %s %s all %d record(s)", strings.Join(where, "; "), len(q.ConsumerProcs(e)), w.Who, w.Past, len(recs))
}

// killAll SIGKILLs every instance.
func killAll(t *scenario.T, procs []faults.Proc) bool {
	for i, p := range procs {
		if err := p.Kill(); err != nil {
			t.Errorf("kill instance %d: %v", i, err)
			return false
		}
	}
	return true
}
