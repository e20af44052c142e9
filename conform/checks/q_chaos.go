package checks

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// The consumer faults chaos draws when the config has a consumer section:
// what a producer, a broker and a deploy do to a consumer in production.
const (
	QueueNone      = "none"
	QueueDuplicate = "queue-duplicate"      // the record produced twice (a producer retry)
	QueueKill      = "queue-kill-consumer"  // one consumer SIGKILLed with records in flight, restarted
	QueueRebalance = "queue-rebalance"      // one consumer leaves the group and rejoins
	QueuePoison    = "queue-poison-between" // a malformed record just before a good one
)

// QueuePlanned is one record of chaos's consumer stream.
type QueuePlanned struct {
	N     int
	Fault string
	// Proc is the consumer a kill or rebalance strikes.
	Proc  int
	Delay time.Duration
}

func (p QueuePlanned) String() string {
	s := fmt.Sprintf("record %03d fault %-22s delay %s", p.N, p.Fault, p.Delay)
	if p.Fault == QueueKill || p.Fault == QueueRebalance {
		s += fmt.Sprintf(" consumer %d", p.Proc)
	}
	return s
}

// QueueSchedule is chaos's consumer plan, a pure function of the seed: the
// first records take each fault once in a seeded order, so that every
// fault is met within the first seconds, then one record in two draws one.
// Kills and rebalances need processes idemcheck owns (procs > 0).
func QueueSchedule(seed uint64, n, procs int) []QueuePlanned {
	faults := []string{QueueDuplicate, QueuePoison}
	if procs > 0 {
		faults = append(faults, QueueKill, QueueRebalance)
	}
	head := rand.New(rand.NewPCG(seed, 0x5155))
	order := append([]string{}, faults...)
	head.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	out := make([]QueuePlanned, n)
	for i := range out {
		r := rand.New(rand.NewPCG(seed, 0x5155_0000+uint64(i)))
		p := QueuePlanned{N: i + 1, Fault: QueueNone, Delay: time.Duration(20+r.IntN(80)) * time.Millisecond}
		switch {
		case i < 2*len(order) && i%2 == 1:
			p.Fault = order[i/2]
		case i >= 2*len(order) && r.IntN(2) == 0:
			p.Fault = faults[r.IntN(len(faults))]
		}
		if procs > 0 {
			p.Proc = r.IntN(procs)
		}
		out[i] = p
	}
	return out
}

// queueChaos is chaos's consumer stream: records of payments of its own,
// with the planned faults, while the API traffic runs.
type queueChaos struct {
	e      *scenario.Env
	t      *scenario.T
	plan   []QueuePlanned
	procMu *sync.RWMutex
	recs   []*scenario.QRecord
	fired  map[string]int
	drawn  map[string]int
	ran    int
	failed string
	broken bool // failed is a restart that left a consumer down
}

// QueueChaosNeeds is what the consumer stream needs of the broker: its
// kill and rebalance steps wait on the group's members, and a poison goes
// just before a good record on the same partition.
const QueueChaosNeeds = broker.Partitions | broker.Members

// startQueueChaos starts the consumer stream for about d; the returned
// wait ends it and judges every record's credits. nil when the config has
// no consumer section (or no way to read its credits).
func startQueueChaos(ctx context.Context, e *scenario.Env, t *scenario.T, d time.Duration, procMu *sync.RWMutex) func() {
	if e.Queue == nil || scenario.NeedQueue(e) != "" {
		return nil
	}
	if why := scenario.NeedBroker(e, QueueChaosNeeds); why != "" {
		e.Logf("chaos consumer stream: not run: %s", why)
		return nil
	}
	n := max(8, int(d/(150*time.Millisecond)))
	qc := &queueChaos{e: e, t: t, procMu: procMu, plan: QueueSchedule(e.Seed, n, len(e.Queue.ConsumerProcs(e))), fired: map[string]int{}, drawn: map[string]int{}}
	e.Logf("chaos consumer schedule (topic %s, group %s):", e.Queue.Topic, e.Queue.Group)
	for _, p := range qc.plan {
		e.Logf("  %s", p)
	}
	if !e.Queue.RequireReady(ctx, e, t) {
		return nil
	}
	sctx, stop := context.WithTimeout(ctx, d)
	done := make(chan struct{})
	go func() { defer close(done); qc.run(sctx) }()
	return func() {
		<-done
		stop()
		qc.judge(ctx)
	}
}

func (qc *queueChaos) run(ctx context.Context) {
	for _, p := range qc.plan {
		if ctx.Err() != nil || qc.failed != "" {
			return
		}
		if scenario.SleepCtx(ctx, p.Delay) != nil {
			return
		}
		qc.ran++
		qc.step(context.WithoutCancel(ctx), p)
	}
}

// step produces one planned record under its fault.
func (qc *queueChaos) step(ctx context.Context, p QueuePlanned) {
	e, q := qc.e, qc.e.Queue
	r := scenario.NewQRecord(ctx, e, qc.t)
	if r == nil {
		qc.failed = "a record's payment could not be made"
		return
	}
	recs := []*scenario.QRecord{r}
	switch p.Fault {
	case QueueDuplicate:
		recs = append(recs, scenario.CopyOf(r))
	case QueuePoison:
		recs = []*scenario.QRecord{scenario.PoisonRecord(e, r.Partition), r}
	}
	if err := q.ProduceLog(ctx, e, false, recs...); err != nil {
		qc.failed = err.Error()
		return
	}
	qc.recs = append(qc.recs, recs...)
	if p.Fault != QueueNone {
		qc.drawn[p.Fault]++
	}
	start := history.Now()
	fired := false
	switch p.Fault {
	case QueueDuplicate, QueuePoison:
		fired = true // both copies, or the poison and the record, are in the log (acknowledged offsets)
	case QueueKill:
		fired = qc.kill(ctx, p)
	case QueueRebalance:
		fired = qc.rebalance(ctx, p)
	}
	if fired {
		qc.fired[p.Fault]++
		e.NoteFault(fmt.Sprintf("%s (record %d, %s)", p.Fault, p.N, r), start, history.Now())
	}
}

// kill SIGKILLs one consumer while some record is in flight (produced, the
// group not past it), then restarts it. It fired only if a record was in
// flight at the kill, read from the group's offsets just before it.
func (qc *queueChaos) kill(ctx context.Context, p QueuePlanned) bool {
	e, q := qc.e, qc.e.Queue
	qc.procMu.Lock()
	defer qc.procMu.Unlock()
	at, err := q.Committed(ctx)
	inFlight := err == nil && len(scenario.NotPassed(qc.recs, at)) > 0
	proc := q.ConsumerProcs(e)[p.Proc]
	if err := proc.Kill(); err != nil {
		qc.failed = fmt.Sprintf("kill consumer %d: %v", p.Proc, err)
		return false
	}
	if err := proc.Restart(ctx); err != nil {
		qc.failed = fmt.Sprintf("restart consumer %d: %v", p.Proc, err)
		qc.broken = true
		return false
	}
	if err := q.AwaitReady(ctx, e, p.Proc); err != nil {
		qc.failed = fmt.Sprintf("consumer %d did not come back after the kill: %v", p.Proc, err)
		return false
	}
	return inFlight
}

// rebalance restarts one consumer (it leaves the group and joins again);
// it fired once the group has its members back with a new one among them.
func (qc *queueChaos) rebalance(ctx context.Context, p QueuePlanned) bool {
	e, q := qc.e, qc.e.Queue
	qc.procMu.Lock()
	defer qc.procMu.Unlock()
	old, err := q.Members(ctx)
	if err != nil {
		return false
	}
	if err := q.ConsumerProcs(e)[p.Proc].Restart(ctx); err != nil {
		qc.failed = fmt.Sprintf("restart consumer %d: %v", p.Proc, err)
		qc.broken = true
		return false
	}
	if err := q.AwaitReady(ctx, e, p.Proc); err != nil {
		qc.failed = fmt.Sprintf("consumer %d did not come back: %v", p.Proc, err)
		return false
	}
	// One member per process: a member of a process killed just before
	// stays until its session times out, and is not waited for.
	_, joined := q.WaitMembers(ctx, len(q.ConsumerProcs(e)), old, scenario.RedeliveryWait(e))
	return joined
}

// judge waits until the group committed past every record, judges each
// payment's credits, and makes the run inconclusive for a drawn fault that
// never fired.
func (qc *queueChaos) judge(ctx context.Context) {
	t, q := qc.t, qc.e.Queue
	if qc.broken {
		// A consumer the harness killed stayed down: a credit missing
		// after it is the harness's doing, never the service's.
		t.Broke("chaos consumer stream: %s", qc.failed)
		return
	}
	if qc.failed != "" {
		t.Errorf("chaos consumer stream: %s", qc.failed)
		return
	}
	if len(qc.recs) == 0 {
		t.Inconclusive("the chaos consumer stream produced a record", "none was produced within the run")
		return
	}
	if !q.RequireCommitted(ctx, t, qc.recs, scenario.RedeliveryWait(qc.e)) {
		return
	}
	t.JudgeQueue(ctx, qc.recs, nil)
	var missed, words []string
	for f, n := range qc.drawn {
		words = append(words, fmt.Sprintf("%s %d/%d", f, qc.fired[f], n))
		if qc.fired[f] == 0 {
			missed = append(missed, fmt.Sprintf("%s (drawn %d times)", f, n))
		}
	}
	sort.Strings(missed)
	sort.Strings(words)
	if len(missed) > 0 {
		t.Inconclusive("every consumer fault the schedule drew fired", "these never did: %s", strings.Join(missed, "; "))
	}
	t.Counted("consumer stream: %d of %d planned records produced (%d in the log with copies and poison), faults fired/drawn: %s",
		qc.ran, len(qc.plan), len(qc.recs), strings.Join(words, ", "))
}
