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
	b := t.Send(ctx, "lower-case header name", in, func(s *driver.Send) { s.KeyMode = driver.KeyHeaderLower })
	scenario.SameReplay(e, t, "the lower-case header", a, b)
	t.Judge(ctx, nil, in)
	t.Passf("lower-case header replayed the answer")
}
