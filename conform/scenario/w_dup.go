package scenario

import (
	"context"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp"
)

// runWDup: once the schedule's delivery of each event was acknowledged,
// the same event twice in a row, and once more much later (past the
// handler's documented dedup window when it fits in --max-wait).
func runWDup(ctx context.Context, e *Env, t *T) {
	p, ok := pay(ctx, e, t, false)
	if !ok || !p.requireAcked(ctx, e, t) {
		return
	}
	answered := 0
	for _, ev := range p.events {
		for i := 0; i < 2; i++ {
			if d := p.send(ctx, e, ev.ID, e.Hooks.Endpoint, fakepsp.SendOptions{Via: "duplicate, at once"}); d.Err == "" {
				answered++
			}
		}
	}
	late := 2 * time.Second
	window := e.Hooks.Cfg.DedupWindowD()
	reached := "no dedup window documented"
	if window > 0 {
		late = window + time.Second
		reached = fmt.Sprintf("past the documented dedup window %s", window)
		if !e.CanWait(late) {
			late = e.MaxWait
			reached = fmt.Sprintf("NOT past the documented dedup window %s (--max-wait %s)", window, e.MaxWait)
		}
	}
	if err := sleepCtx(ctx, late); err != nil {
		return
	}
	for _, ev := range p.events {
		if d := p.send(ctx, e, ev.ID, e.Hooks.Endpoint, fakepsp.SendOptions{Via: fmt.Sprintf("duplicate, %s later", late)}); d.Err == "" {
			answered++
		}
	}
	if answered == 0 {
		t.Inconclusive("no duplicate copy got an answer from the handler", "is the handler still up?")
	}
	t.Judge(ctx, nil, p.in)
	t.judgeCredits(ctx, p)
	t.Passf("%d event(s) acknowledged, then %d duplicate copies answered (2 at once each, 1 after %s, %s)", len(p.events), answered, late, reached)
}
