package checks

import (
	"context"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

func runReplicas(ctx context.Context, e *scenario.Env, t *scenario.T) {
	in := e.NewIntent(0)
	atts, gated := scenario.Concurrent(ctx, e, t, in, max(4, len(e.D.Bases())*2), true)
	gateHeld(e, t, in, gated)
	rs := t.Converge(ctx, "retry after the copies", in, nil)
	t.Judge(ctx, nil, in)
	t.JudgeExecutions(in, "payment check: replicas")
	t.Passf("%d copies over %d instances (PSP gate held: %v): %s; then %s", len(atts), len(e.D.Bases()), gated, scenario.Summarize(atts), scenario.DescribeResp(scenario.Last(rs)))
}
