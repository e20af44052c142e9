package checks

import (
	"context"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

func vReplayHeader(ctx context.Context, e *scenario.Env, t *scenario.T) {
	name := e.Cfg.Proto().ReplayHeader
	in := e.NewIntent(0)
	a := scenario.SendUntilFinal(ctx, t, "create", in, nil)
	if !scenario.Created(e, t, a) {
		return
	}
	b := t.Send(ctx, "retry", in, nil)
	if _, has := a.Header(name); has {
		t.Deviation(t.Check.Rule, "the first answer carries %s", name)
	}
	if _, has := b.Header(name); !has {
		t.Deviation(t.Check.Rule, "the replay lacks %s", name)
	}
	t.Passf("%s on the replay only", name)
}
