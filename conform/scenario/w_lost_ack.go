package scenario

import (
	"context"
	"fmt"
	"time"
)

// runWLostAck: the handler's answers dropped on the way back to the PSP
// (Toxiproxy), so the schedule redelivers events the handler already
// applied.
func runWLostAck(ctx context.Context, e *Env, t *T) {
	p, ok := pay(ctx, e, t, true)
	if !ok {
		return
	}
	undo, err := e.Hooks.Link.LoseReply()
	if err != nil {
		p.release()
		t.Errorf("lose the handler's answers: %v", err)
		return
	}
	start := time.Now()
	p.release()
	lost := p.waitLost(ctx, e)
	before, _ := e.Credits.Credits(ctx, p.ref)
	_ = undo()
	e.NoteFault("webhook answers lost", start.UnixNano(), time.Now().UnixNano())
	if len(lost) < len(p.events) {
		t.Inconclusive(fmt.Sprintf("only %d of %d event(s) had an answer lost on the way back", len(lost), len(p.events)),
			"the schedule's deliveries did not reach the handler through idemcheck's link")
	}
	if !p.requireAcked(ctx, e, t) {
		return
	}
	t.Judge(ctx, nil, p.in)
	t.judgeCredits(ctx, p)
	t.Passf("%d event(s) answered, each answer lost, then redelivered; credits before the redeliveries %v", len(lost), before)
}
