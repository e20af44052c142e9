package scenario

import (
	"context"
	"fmt"
	"time"
)

// runWKill: the handler's process SIGKILLed at the two moments a credit is
// lost or repeated: right after it acknowledged an event (a handler that
// answers before its credit commits loses it), and after it answered but
// before the answer reached the PSP (the schedule redelivers to the
// restarted process: a dedup kept in memory credits again).
func runWKill(ctx context.Context, e *Env, t *T) {
	a, ok := pay(ctx, e, t, true)
	if !ok {
		return
	}
	kills := 0
	for _, ev := range a.events {
		a.hold.ReleaseOne(ev.ID)
		if !waitLog(ctx, e, e.Cfg.ConvergeD(), func() bool { return acked(a.deliveries(e), ev.ID) }) {
			t.Inconclusive(fmt.Sprintf("the handler never acknowledged %s %s: %s", ev.Type, ev.ID, answers(a.deliveries(e), ev.ID)), "")
			a.release()
			return
		}
		if !restartHandler(ctx, e, t, "kill right after the ack of "+ev.Type) {
			a.release()
			return
		}
		kills++
	}
	a.release()
	b, ok := pay(ctx, e, t, true)
	if !ok {
		return
	}
	undo, err := e.Hooks.Link.LoseReply()
	if err != nil {
		b.release()
		t.Errorf("lose the handler's answers: %v", err)
		return
	}
	b.release()
	lost := b.waitLost(ctx, e)
	ok = restartHandler(ctx, e, t, "kill after its answers were lost on the way back")
	_ = undo()
	if !ok {
		return
	}
	if len(lost) < len(b.events) {
		t.Inconclusive(fmt.Sprintf("only %d of %d event(s) of %s had an answer lost before the kill", len(lost), len(b.events), b.ref.OrderID), "")
	}
	if !a.requireAcked(ctx, e, t) || !b.requireAcked(ctx, e, t) {
		return
	}
	t.Judge(ctx, nil, a.in, b.in)
	t.judgeCredits(ctx, a)
	t.judgeCredits(ctx, b)
	t.Passf("%s: killed right after each of %d acks; %s: killed after %d answer(s) were lost, then redelivered", a.ref.OrderID, kills, b.ref.OrderID, len(lost))
}

// restartHandler SIGKILLs the process the endpoint reaches and starts it again.
func restartHandler(ctx context.Context, e *Env, t *T, what string) bool {
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
