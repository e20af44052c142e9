package scenario

import (
	"context"
	"fmt"
	"time"
)

func runB4(ctx context.Context, e *Env, t *T) {
	h, w := e.Cfg.RetryHorizonD(), e.Cfg.KeyWindowD()
	if w > 0 && w < h {
		t.Safety("key-window-short", "payment check: key lifetime against the retry horizon",
			"the documented key window %s is shorter than the clients' retry horizon %s: a late retry is a new payment", w, h)
	}
	in := e.NewIntent(0)
	a := last(t.RetryUntilFinal(ctx, "first attempt", in, 10, 150*time.Millisecond, nil))
	if err := e.Wait(ctx, h); err != nil {
		t.Errorf("%v", err)
		return
	}
	b := last(t.RetryUntilFinal(ctx, fmt.Sprintf("retry at the horizon (%s later)", h), in, 10, 150*time.Millisecond, nil))
	t.Judge(ctx, nil, in)
	life := keyLifetime(ctx, e, t)
	t.Passf("retry %s after %s answered %s; %s", h, describeResp(a), describeResp(b), life)
}
