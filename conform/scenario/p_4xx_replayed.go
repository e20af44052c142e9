package scenario

import (
	"context"

	"github.com/idemcheck/idemcheck/conform/driver"
)

func v4xx(ctx context.Context, e *Env, t *T) {
	in := e.NewIntent(0)
	in.Meaning.Amount = 0
	a := t.Send(ctx, "invalid request (amount 0)", in, func(s *driver.Send) { s.NoHistory = true })
	if a.Status < 400 || a.Status > 499 {
		t.NotApplicable("amount 0 was answered %d, not a 4xx", a.Status)
		return
	}
	b := t.Send(ctx, "retry", in, func(s *driver.Send) { s.NoHistory = true })
	if a.Status != b.Status || a.RespBody != b.RespBody {
		t.Deviation(t.check.Rule, "4xx %d %q, retry %d %q", a.Status, clip(a.RespBody), b.Status, clip(b.RespBody))
	}
	t.Passf("%d replayed", a.Status)
}
