package checks

import (
	"context"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

func vExpiry(ctx context.Context, e *scenario.Env, t *scenario.T) {
	w := e.Cfg.KeyWindowD()
	in := e.NewIntent(0)
	a := scenario.SendUntilFinal(ctx, t, "create", in, nil)
	if !scenario.Created(e, t, a) {
		return
	}
	wait := w + w/5 + 200*time.Millisecond
	if err := e.Wait(ctx, wait); err != nil {
		t.Errorf("%v", err)
		return
	}
	b := t.Send(ctx, fmt.Sprintf("retry %s after, past the window", wait), in, func(s *driver.Send) { s.NoHistory = true })
	if b.Outcome != "succeeded" && b.Outcome != "processing" && b.Outcome != "failed" {
		t.Deviation(t.Check.Rule, "a retry after the window got %d %s: the expired record is still trusted", b.Status, b.Outcome)
	}
	e.Settle(ctx)
	again := ""
	life := fmt.Sprintf("observed key lifetime at least %s (key_window %s)", wait, w)
	if cs, ok := e.ChargesFor(ctx, in); ok && len(cs) > 1 {
		again = fmt.Sprintf(" (executed again: %d charges, allowed past the window)", len(cs))
		life = fmt.Sprintf("observed key lifetime under %s (key_window %s)", wait, w)
	} else if b.PaymentID != "" && b.PaymentID != a.PaymentID {
		life = fmt.Sprintf("observed key lifetime under %s (key_window %s)", wait, w)
	}
	t.Passf("after %s: %s, then %s%s; %s", wait, scenario.DescribeResp(a), scenario.DescribeResp(b), again, life)
}
