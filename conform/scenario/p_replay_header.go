package scenario

import (
	"context"
)

func vReplayHeader(ctx context.Context, e *Env, t *T) {
	name := e.Cfg.Proto().ReplayHeader
	in := e.NewIntent(0)
	a := sendUntilFinal(ctx, t, "create", in, nil)
	b := t.Send(ctx, "retry", in, nil)
	if _, has := a.Header(name); has {
		t.Deviation(t.check.Rule, "the first answer carries %s", name)
	}
	if _, has := b.Header(name); !has {
		t.Deviation(t.check.Rule, "the replay lacks %s", name)
	}
	t.Passf("%s on the replay only", name)
}
