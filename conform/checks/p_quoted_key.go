package checks

import (
	"context"

	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

func vQuoted(ctx context.Context, e *scenario.Env, t *scenario.T) {
	in := e.NewIntent(0)
	a := scenario.SendUntilFinal(ctx, t, "bare key", in, nil)
	if !scenario.Created(e, t, a) {
		return
	}
	b := t.Send(ctx, "quoted key", in, func(s *driver.Send) { s.KeyMode = driver.KeyQuoted; s.NoHistory = true })
	scenario.SameReplay(e, t, "the quoted key", a, b)
	e.Settle(ctx)
	if cs, ok := e.ChargesFor(ctx, in); ok && len(cs) > 1 {
		t.Deviation(t.Check.Rule, "the quoted key executed again (%d charges)", len(cs))
	}
	t.Passf("\"K\" replayed K's answer")
}
