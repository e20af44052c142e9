package scenario

import (
	"context"
)

func vMismatch(ctx context.Context, e *Env, t *T) {
	in := e.NewIntent(0)
	sendUntilFinal(ctx, t, "create", in, nil)
	ch := in
	ch.Meaning.Amount = e.NewIntent(0).Meaning.Amount
	m := t.Send(ctx, "same key, other amount", ch, nil)
	if why := mismatchOK(e, m); why != "" {
		t.Deviation(t.check.Rule, "mismatch %s", why)
	}
	t.Passf("mismatch answered %d", m.Status)
}
