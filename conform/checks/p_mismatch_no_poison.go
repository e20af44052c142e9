package checks

import (
	"context"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

func vNoPoison(ctx context.Context, e *scenario.Env, t *scenario.T) {
	in := e.NewIntent(0)
	a := scenario.SendUntilFinal(ctx, t, "create", in, nil)
	if !scenario.Created(e, t, a) {
		return
	}
	ch := in
	ch.Meaning.Amount = e.NewIntent(0).Meaning.Amount
	t.Send(ctx, "same key, other amount", ch, nil)
	b := t.Send(ctx, "the original again", in, nil)
	if b.Status != a.Status || b.PaymentID != a.PaymentID {
		t.Deviation(t.Check.Rule, "after the mismatch the original got %d %s (first %d %s)", b.Status, b.PaymentID, a.Status, a.PaymentID)
	}
	t.Passf("original still replays %d %s", b.Status, b.PaymentID)
}
