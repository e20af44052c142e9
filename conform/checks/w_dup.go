package checks

import (
	"context"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/fakepsp"
)

// runWDup: once the schedule's delivery of each event was acknowledged,
// the same event twice in a row, and once more much later (past the
// handler's documented dedup window when it fits in --max-wait).
func runWDup(ctx context.Context, e *scenario.Env, t *scenario.T) {
	p, ok := scenario.Pay(ctx, e, t, false)
	if !ok || !p.RequireAcked(ctx, e, t) {
		return
	}
	answered := 0
	for _, ev := range p.Events {
		for i := 0; i < 2; i++ {
			if d := p.Send(ctx, e, ev.ID, e.Hooks.Endpoint, fakepsp.SendOptions{Via: "duplicate, at once"}); d.Err == "" {
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
	if err := scenario.SleepCtx(ctx, late); err != nil {
		return
	}
	for _, ev := range p.Events {
		if d := p.Send(ctx, e, ev.ID, e.Hooks.Endpoint, fakepsp.SendOptions{Via: fmt.Sprintf("duplicate, %s later", late)}); d.Err == "" {
			answered++
		}
	}
	if answered == 0 {
		t.Inconclusive("no duplicate copy got an answer from the handler", "is the handler still up?")
	}
	t.Judge(ctx, nil, p.In)
	t.JudgeCredits(ctx, p)
	t.Passf("%d event(s) acknowledged, then %d duplicate copies answered (2 at once each, 1 after %s, %s)", len(p.Events), answered, late, reached)
}
