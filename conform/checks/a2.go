package checks

import (
	"context"
	"fmt"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// gateHeld makes a concurrency check inconclusive when the PSP gate that
// makes its copies overlap never held a charge.
func gateHeld(e *scenario.Env, t *scenario.T, in scenario.Intent, gated bool) {
	if e.PSP != nil && !gated {
		t.Inconclusive(fmt.Sprintf("no PSP charge request of order %s reached the gate while the copies were in flight", in.Meaning.OrderID),
			"the copies may not have overlapped: did the service call the PSP idemcheck started?")
	}
}

func runA2(ctx context.Context, e *scenario.Env, t *scenario.T) {
	in := e.NewIntent(0)
	atts, gated := scenario.Concurrent(ctx, e, t, in, e.Cfg.Concurrency, false)
	gateHeld(e, t, in, gated)
	rs := t.Converge(ctx, "retry after the copies", in, nil)
	t.Judge(ctx, nil, in)
	t.JudgeExecutions(in, "SCENARIOS.md A2")
	t.Passf("%d copies at once (PSP gate held: %v): %s; then %s", len(atts), gated, scenario.Summarize(atts), scenario.DescribeResp(scenario.Last(rs)))
}
