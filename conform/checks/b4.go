package checks

import (
	"context"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

func runB4(ctx context.Context, e *scenario.Env, t *scenario.T) {
	h, w := e.Cfg.RetryHorizonD(), e.Cfg.KeyWindowD()
	if w > 0 && w < h {
		t.Safety("key-window-short", "payment check: key lifetime against the retry horizon",
			"the documented key window %s is shorter than the clients' retry horizon %s: a late retry is a new payment", w, h)
	}
	in := e.NewIntent(0)
	a := scenario.Last(t.RetryUntilFinal(ctx, "first attempt", in, 10, 150*time.Millisecond, nil))
	if err := e.Wait(ctx, h); err != nil {
		t.Errorf("%v", err)
		return
	}
	b := scenario.Last(t.RetryUntilFinal(ctx, fmt.Sprintf("retry at the horizon (%s later)", h), in, 10, 150*time.Millisecond, nil))
	t.Judge(ctx, nil, in)
	life := scenario.KeyLifetime(ctx, e, t)
	t.Passf("retry %s after %s answered %s; %s", h, scenario.DescribeResp(a), scenario.DescribeResp(b), life)
}
