package scenario

import (
	"context"
	"time"

	"github.com/idemcheck/idemcheck/checker"
)

func runA3(ctx context.Context, e *Env, t *T) {
	in := e.NewIntent(0)
	a, start, ok := killOwnerAfterCharge(ctx, e, t, in)
	if !ok {
		return
	}
	e.NoteFault("A3 owner killed", start, checker.Now())
	rs := t.RetryUntilFinal(ctx, "client retries after the owner died", in, 60, 250*time.Millisecond, nil)
	t.Judge(ctx, nil, in)
	t.Passf("owner killed (%s), then %s", describeResp(a), describeResp(last(rs)))
}
