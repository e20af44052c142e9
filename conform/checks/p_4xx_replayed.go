package checks

import (
	"context"

	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

func v4xx(ctx context.Context, e *scenario.Env, t *scenario.T) {
	in := e.NewIntent(0)
	in.Meaning.Amount = 0
	a := t.Send(ctx, "invalid request (amount 0)", in, func(s *driver.Send) { s.NoHistory = true })
	if scenario.Unserved(e, t, "the invalid create", a) {
		return
	}
	if a.Status == 401 || a.Status == 403 {
		t.Inconclusive("the invalid create reached a handler that judged its body",
			"it was answered %d (%s): the caller was refused, not the request; check callers", a.Status, scenario.Clip(a.RespBody))
		return
	}
	if a.Status < 400 || a.Status > 499 {
		t.NotApplicable("amount 0 was answered %d, not a 4xx", a.Status)
		return
	}
	b := t.Send(ctx, "retry", in, func(s *driver.Send) { s.NoHistory = true })
	if a.Status != b.Status || a.RespBody != b.RespBody {
		t.Deviation(t.Check.Rule, "4xx %d %q, retry %d %q", a.Status, scenario.Clip(a.RespBody), b.Status, scenario.Clip(b.RespBody))
	}
	t.Passf("%d replayed", a.Status)
}
