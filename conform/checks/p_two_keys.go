package checks

import (
	"context"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

func vTwoKeys(ctx context.Context, e *scenario.Env, t *scenario.T) {
	in1 := e.NewIntent(0)
	in2 := in1
	in2.Key = e.NewIntent(0).Key
	a := scenario.SendUntilFinal(ctx, t, "first key", in1, nil)
	b := scenario.SendUntilFinal(ctx, t, "second key, same body", in2, nil)
	if a.PaymentID != "" && a.PaymentID == b.PaymentID {
		t.Deviation(t.Check.Rule, "two keys got one payment %s: the target deduplicates by body", a.PaymentID)
	}
	e.Settle(ctx)
	if cs, ok := e.ChargesFor(ctx, in1); ok && len(cs) != 2 {
		t.Deviation(t.Check.Rule, "two keys on one body made %d charges, expected 2", len(cs))
	}
	t.Judge(ctx, nil, in1, in2)
	t.Passf("two payments %s, %s", a.PaymentID, b.PaymentID)
}
