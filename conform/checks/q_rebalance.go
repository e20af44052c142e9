package checks

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// streamEvery is the gap between the records of Q-rebalance's stream:
// every partition gets records while each rebalance is under way.
const streamEvery = 25 * time.Millisecond

// runQRebalance: while records stream in, one instance leaves the group
// and joins again (a deploy), then another: each rebalance hands the
// partitions a consumer had read but not committed to one that has not
// seen them, and the broker redelivers every uncommitted offset.
func runQRebalance(ctx context.Context, e *scenario.Env, t *scenario.T) {
	q := e.Queue
	procs := q.ConsumerProcs(e)
	n := len(procs)
	members, ok := q.WaitMembers(ctx, n, nil, scenario.RedeliveryWait(e))
	if !ok {
		t.Inconclusive(fmt.Sprintf("group %s has %d member(s), not one per instance (%d), within %s", q.Group, len(members), n, scenario.RedeliveryWait(e)),
			"does each instance consume $%s in the group named by $%s?", q.Cfg.Env.Topic, q.Cfg.Env.Group)
		return
	}
	s := &stream{}
	sctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); s.run(sctx, e, t) }()
	var steps []string
	for _, i := range []int{n - 1, 0} {
		_ = scenario.SleepCtx(ctx, 300*time.Millisecond)
		before, start := s.count(), history.Now()
		if err := procs[i].Restart(ctx); err != nil {
			stop()
			<-done
			t.Errorf("restart instance %d: %v", i, err)
			return
		}
		if err := q.AwaitReady(ctx, e, i); err != nil {
			stop()
			<-done
			t.Errorf("instance %d did not come back: %v", i, err)
			return
		}
		now, joined := q.WaitMembers(ctx, n, members, scenario.RedeliveryWait(e))
		e.NoteFault(fmt.Sprintf("instance %d leaves and joins group %s", i, q.Group), start, history.Now())
		if !joined {
			stop()
			<-done
			t.Inconclusive(fmt.Sprintf("after instance %d left and restarted, group %s did not get back to %d members within %s (members %v)", i, q.Group, n, scenario.RedeliveryWait(e), now),
				"does the restarted instance join the group named by $%s?", q.Cfg.Env.Group)
			return
		}
		steps = append(steps, fmt.Sprintf("instance %d left and rejoined while %d record(s) were produced (members %s -> %s)", i, s.count()-before, short(members), short(now)))
		members = now
	}
	_ = scenario.SleepCtx(ctx, 300*time.Millisecond)
	stop()
	<-done
	recs, err := s.result()
	if err != nil {
		t.Errorf("%v", err)
		return
	}
	if !q.RequireCommitted(ctx, t, recs, scenario.RedeliveryWait(e)) {
		return
	}
	t.JudgeQueue(ctx, recs, nil)
	t.Passf("%d records streamed; %s; the group committed past all", len(recs), strings.Join(steps, "; "))
}

// stream produces a record every streamEvery until its context ends.
type stream struct {
	mu   sync.Mutex
	recs []*scenario.QRecord
	err  error
}

func (s *stream) run(ctx context.Context, e *scenario.Env, t *scenario.T) {
	for ctx.Err() == nil {
		// The create and the produce get their own context: a record cut
		// off mid-send would be neither evidence nor judged.
		r := scenario.NewQRecord(context.WithoutCancel(ctx), e, t)
		if r == nil {
			return // inconclusive, said
		}
		if err := e.Queue.ProduceLog(context.WithoutCancel(ctx), e, false, r); err != nil {
			s.mu.Lock()
			s.err = err
			s.mu.Unlock()
			return
		}
		s.mu.Lock()
		s.recs = append(s.recs, r)
		s.mu.Unlock()
		_ = scenario.SleepCtx(ctx, streamEvery)
	}
}

func (s *stream) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.recs)
}

func (s *stream) result() ([]*scenario.QRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.recs, s.err
}

// short names members by the tail of their ids.
func short(ms []string) string {
	var out []string
	for _, m := range ms {
		if len(m) > 8 {
			m = "…" + m[len(m)-8:]
		}
		out = append(out, m)
	}
	return "[" + strings.Join(out, " ") + "]"
}
