package checks

import (
	"context"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

func vOnce(ctx context.Context, e *scenario.Env, t *scenario.T) {
	in := e.NewIntent(0)
	scenario.SendUntilFinal(ctx, t, "create", in, nil)
	t.Send(ctx, "retry", in, nil)
	scenario.KeepTelling(ctx, t, "retry", in, t.Send(ctx, "retry", in, nil), nil)
	t.Judge(ctx, nil, in)
	if cs, ok := e.ChargesFor(ctx, in); ok && len(cs) == 0 {
		t.Deviation(t.Check.Rule, "the create made no PSP charge at all")
	}
	t.Passf("three sends of one request")
}
