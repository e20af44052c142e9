package scenario

import (
	"context"
)

func vReplay(ctx context.Context, e *Env, t *T) {
	in := e.NewIntent(0)
	a := sendUntilFinal(ctx, t, "create", in, nil)
	b := t.Send(ctx, "retry", in, nil)
	if a.Status != b.Status || a.RespBody != b.RespBody {
		t.Deviation(t.check.Rule, "first answer %d %q, retry %d %q", a.Status, clip(a.RespBody), b.Status, clip(b.RespBody))
	}
	t.Judge(ctx, nil, in)
	t.Passf("retry replayed %d and the same body", b.Status)
}
