package checks

import (
	"context"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

func runA3(ctx context.Context, e *scenario.Env, t *scenario.T) {
	in := e.NewIntent(0)
	a, start, ok := scenario.KillOwnerAfterCharge(ctx, e, t, in)
	if !ok {
		return
	}
	e.NoteFault("A3 owner killed", start, history.Now())
	rs := t.RetryUntilFinal(ctx, "client retries after the owner died", in, 60, 250*time.Millisecond, nil)
	t.Judge(ctx, nil, in)
	t.Passf("owner killed (%s), then %s", scenario.DescribeResp(a), scenario.DescribeResp(scenario.Last(rs)))
}
