package checks

import (
	"context"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

func vReplay(ctx context.Context, e *scenario.Env, t *scenario.T) {
	in := e.NewIntent(0)
	a := scenario.SendUntilFinal(ctx, t, "create", in, nil)
	if !scenario.Created(e, t, a) {
		return
	}
	b := t.Send(ctx, "retry", in, nil)
	if a.Status != b.Status || a.RespBody != b.RespBody {
		t.Deviation(t.Check.Rule, "first answer %d %q, retry %d %q", a.Status, scenario.Clip(a.RespBody), b.Status, scenario.Clip(b.RespBody))
	}
	scenario.KeepTelling(ctx, t, "retry", in, b, nil)
	t.Judge(ctx, nil, in)
	t.Passf("retry replayed %d and the same body", b.Status)
}
