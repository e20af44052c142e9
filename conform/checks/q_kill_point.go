package checks

import (
	"context"
	"fmt"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/faults"
)

// runQKillAt is Q-kill against a consumer that exposes the point between
// its durable credit and its offset commit: every process is armed to
// crash there once, a record is produced, and the check counts only if a
// process crashed at the point with the record credited and the group not
// past it. The other processes are then SIGKILLed, and all restarted.
func runQKillAt(ctx context.Context, e *scenario.Env, t *scenario.T) {
	q := e.Queue
	for i, p := range q.Points {
		if err := p.Arm("1*crash"); err != nil {
			t.Errorf("arm consumer %d's point %s: %v", i, p.Name, err)
			return
		}
	}
	disarm := func() {
		for _, p := range q.Points {
			_ = p.Undo() // a crashed process is gone, and its point with it
		}
	}
	r := scenario.NewQRecord(ctx, e, t)
	if r == nil {
		disarm()
		return
	}
	if err := q.Produce(ctx, e, r); err != nil {
		disarm()
		t.Errorf("%v", err)
		return
	}
	start := history.Now()
	crashed := q.WaitCrash(ctx, e)
	credited, passed, read := q.Landed(ctx, e, r)
	disarm()
	procs := q.ConsumerProcs(e)
	for i, p := range procs {
		if ec, ok := p.(faults.ExitCoder); ok {
			if _, exited := ec.ExitCode(); exited {
				continue
			}
		}
		if i != crashed {
			if err := p.Kill(); err != nil {
				t.Errorf("kill instance %d: %v", i, err)
				return
			}
		}
	}
	if !q.RestartAll(ctx, e, t) {
		return
	}
	if crashed < 0 {
		t.Inconclusive(fmt.Sprintf("no consumer reached its point %s with record %s within %s", q.Points[0].Name, r, e.Cfg.ConvergeD()),
			"does the consumer consume $%s?", q.Cfg.Env.Topic)
		return
	}
	landed := fmt.Sprintf("instance %d crashed at its point %s with %s", crashed, q.Points[crashed].Name, r)
	e.NoteFault("crash at "+q.Points[crashed].Name+", SIGKILL the other consumers", start, history.Now())
	switch {
	case !read:
		// Unread, "credited, not committed" would be claimed unchecked.
		t.Inconclusive(landed+", but the broker's committed offsets could not be read just after", "is the broker reachable?")
		return
	case passed:
		t.Inconclusive(landed+", but the group had committed past it already", "the point is not between the credit and the offset commit")
		return
	case !credited:
		t.Inconclusive(landed+", but the record was not credited yet", "the point is not after the credit")
		return
	}
	if !q.RequireCommitted(ctx, t, []*scenario.QRecord{r}, scenario.RedeliveryWait(e)) {
		return
	}
	t.JudgeQueue(ctx, []*scenario.QRecord{r}, nil)
	t.Passf("%s: credited, its offset not committed; %d instance(s) restarted, the record redelivered and the group committed past it", landed, len(procs))
}
