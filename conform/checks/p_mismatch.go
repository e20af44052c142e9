package checks

import (
	"context"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

func vMismatch(ctx context.Context, e *scenario.Env, t *scenario.T) {
	in := e.NewIntent(0)
	if !scenario.Created(e, t, scenario.SendUntilFinal(ctx, t, "create", in, nil)) {
		return
	}
	ch := in
	ch.Meaning.Amount = e.NewIntent(0).Meaning.Amount
	m := t.Send(ctx, "same key, other amount", ch, nil)
	if why := scenario.MismatchOK(e, m); why != "" {
		t.Deviation(t.Check.Rule, "mismatch %s", why)
	}
	t.Passf("mismatch answered %d", m.Status)
}
