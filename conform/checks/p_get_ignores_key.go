package checks

import (
	"context"

	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

func vGet(ctx context.Context, e *scenario.Env, t *scenario.T) {
	in := e.NewIntent(0)
	g := t.Send(ctx, "GET with a key", in, func(s *driver.Send) { s.Method = "GET"; s.NoHistory = true })
	if g.Status == e.Cfg.Proto().InProgressStatus || g.Status == e.Cfg.Proto().MismatchStatus {
		t.Deviation(t.Check.Rule, "GET with a key answered %d", g.Status)
	}
	p := scenario.SendUntilFinal(ctx, t, "POST with the same key", in, nil)
	if p.Outcome != "succeeded" && p.Outcome != "failed" {
		t.Deviation(t.Check.Rule, "the POST after a GET with its key got %d %s: the GET used the key", p.Status, p.Outcome)
	}
	t.Judge(ctx, nil, in)
	t.Passf("GET answered %d; the key stayed free", g.Status)
}
