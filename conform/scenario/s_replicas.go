package scenario

import (
	"context"
)

func runReplicas(ctx context.Context, e *Env, t *T) {
	in := e.NewIntent(0)
	atts, gated := concurrent(ctx, e, t, in, max(4, len(e.D.Bases())*2), true)
	gateHeld(e, t, in, gated)
	rs := t.Converge(ctx, "retry after the copies", in, nil)
	t.Judge(ctx, nil, in)
	t.judgeExecutions(in, "payment check: replicas")
	t.Passf("%d copies over %d instances (PSP gate held: %v): %s; then %s", len(atts), len(e.D.Bases()), gated, summarize(atts), describeResp(last(rs)))
}
