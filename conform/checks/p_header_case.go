package checks

import (
	"context"

	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

func vHeaderCase(ctx context.Context, e *scenario.Env, t *scenario.T) {
	in := e.NewIntent(0)
	a := scenario.SendUntilFinal(ctx, t, "canonical header name", in, nil)
	if !scenario.Created(e, t, a) {
		return
	}
	lower := func(s *driver.Send) { s.KeyMode = driver.KeyHeaderLower }
	b := t.Send(ctx, "lower-case header name", in, lower)
	scenario.SameReplay(e, t, "the lower-case header", a, b)
	scenario.KeepTelling(ctx, t, "lower-case header name", in, b, lower)
	t.Judge(ctx, nil, in)
	t.Passf("lower-case header replayed the answer")
}
