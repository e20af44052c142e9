package scenario

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp"
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

// waitLost waits, bounded by converge_within, until each event of the
// payment had a schedule delivery that got no answer; it returns those.
func (p *hookPayment) waitLost(ctx context.Context, e *Env) []string {
	var lost []string
	waitLog(ctx, e, e.Cfg.ConvergeD(), func() bool {
		ds := p.deliveries(e)
		lost = lost[:0]
		for _, id := range p.ids() {
			if slices.ContainsFunc(ds, func(d fakepsp.Delivery) bool { return d.EventID == id && d.Via == "" && d.Err != "" }) {
				lost = append(lost, id)
			}
		}
		return len(lost) == len(p.events)
	})
	return lost
}
