package checks

import (
	"context"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// runWKill: the handler's process SIGKILLed at the two moments a credit is
// lost or repeated: right after it acknowledged an event (a handler that
// answers before its credit commits loses it), and after it answered but
// before the answer reached the PSP (the schedule redelivers to the
// restarted process: a dedup kept in memory credits again).
func runWKill(ctx context.Context, e *scenario.Env, t *scenario.T) {
	a, ok := scenario.Pay(ctx, e, t, true)
	if !ok {
		return
	}
	kills := 0
	for _, ev := range a.Events {
		a.Hold.ReleaseOne(ev.ID)
		if !scenario.WaitLog(ctx, e, e.Cfg.ConvergeD(), func() bool { return scenario.Acked(a.Deliveries(e), ev.ID) }) {
			t.Inconclusive(fmt.Sprintf("the handler never acknowledged %s %s: %s", ev.Type, ev.ID, scenario.Answers(a.Deliveries(e), ev.ID)), "")
			a.Release()
			return
		}
		if !restartHandler(ctx, e, t, "kill right after the ack of "+ev.Type) {
			a.Release()
			return
		}
		kills++
	}
	a.Release()
	b, ok := scenario.Pay(ctx, e, t, true)
	if !ok {
		return
	}
	undo, err := e.Hooks.Link.LoseReply()
	if err != nil {
		b.Release()
		t.Errorf("lose the handler's answers: %v", err)
		return
	}
	b.Release()
	lost := b.WaitLost(ctx, e)
	ok = restartHandler(ctx, e, t, "kill after its answers were lost on the way back")
	_ = undo()
	if !ok {
		return
	}
	if len(lost) < len(b.Events) {
		t.Inconclusive(fmt.Sprintf("only %d of %d event(s) of %s had an answer lost before the kill", len(lost), len(b.Events), b.Ref.OrderID), "")
	}
	if !a.RequireAcked(ctx, e, t) || !b.RequireAcked(ctx, e, t) {
		return
	}
	t.Judge(ctx, nil, a.In, b.In)
	t.JudgeCredits(ctx, a)
	t.JudgeCredits(ctx, b)
	t.Passf("%s: killed right after each of %d acks; %s: killed after %d answer(s) were lost, then redelivered", a.Ref.OrderID, kills, b.Ref.OrderID, len(lost))
}

// restartHandler SIGKILLs the process the endpoint reaches and starts it again.
func restartHandler(ctx context.Context, e *scenario.Env, t *scenario.T, what string) bool {
	start := time.Now()
	if err := e.Hooks.Proc.Kill(); err != nil {
		t.Errorf("%s: %v", what, err)
		return false
	}
	if err := e.Hooks.Proc.Restart(ctx); err != nil {
		t.Errorf("%s: restart: %v", what, err)
		return false
	}
	if err := e.Hooks.Ready(ctx); err != nil {
		t.Errorf("%s: the target did not come back: %v", what, err)
		return false
	}
	e.NoteFault(what, start.UnixNano(), time.Now().UnixNano())
	return true
}
