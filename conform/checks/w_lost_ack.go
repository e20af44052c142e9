package checks

import (
	"context"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// runWLostAck: the handler's answers dropped on the way back to the PSP
// (Toxiproxy), so the schedule redelivers events the handler already
// applied.
func runWLostAck(ctx context.Context, e *scenario.Env, t *scenario.T) {
	p, ok := scenario.Pay(ctx, e, t, true)
	if !ok {
		return
	}
	undo, err := e.Hooks.Link.LoseReply()
	if err != nil {
		p.Release()
		t.Errorf("lose the handler's answers: %v", err)
		return
	}
	start := time.Now()
	p.Release()
	lost := p.WaitLost(ctx, e)
	before, _ := e.Credits.Credits(ctx, p.Ref)
	_ = undo()
	e.NoteFault("webhook answers lost", start.UnixNano(), time.Now().UnixNano())
	if len(lost) < len(p.Events) {
		t.Inconclusive(fmt.Sprintf("only %d of %d event(s) had an answer lost on the way back", len(lost), len(p.Events)),
			"the schedule's deliveries did not reach the handler through idemcheck's link")
	}
	if !p.RequireAcked(ctx, e, t) {
		return
	}
	t.Judge(ctx, nil, p.In)
	t.JudgeCredits(ctx, p)
	t.Passf("%d event(s) answered, each answer lost, then redelivered; credits before the redeliveries %v", len(lost), before)
}
