package scenario

import (
	"context"
)

func vOnce(ctx context.Context, e *Env, t *T) {
	in := e.NewIntent(0)
	sendUntilFinal(ctx, t, "create", in, nil)
	t.Send(ctx, "retry", in, nil)
	t.Send(ctx, "retry", in, nil)
	t.Judge(ctx, nil, in)
	if cs, ok := e.ChargesFor(ctx, in); ok && len(cs) == 0 {
		t.Deviation(t.check.Rule, "the create made no PSP charge at all")
	}
	t.Passf("three sends of one request")
}
