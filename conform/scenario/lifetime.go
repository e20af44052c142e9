package scenario

import (
	"context"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/conform/driver"
)

// KeyLifetime measures how long the target observably keeps a key: a
// separate intent of its own (its late re-execution, allowed past the key
// window, must not count against the check's intents) is created, then
// retried at growing intervals up to twice the longer of the documented
// window and the retry horizon, within --max-wait. A retry answered with
// another payment, or that charged again, means the key was forgotten.
func KeyLifetime(ctx context.Context, e *Env, t *T) string {
	h, w := e.Cfg.RetryHorizonD(), e.Cfg.KeyWindowD()
	span := 2 * max(h, w)
	if e.Advance == nil {
		span = min(span, e.MaxWait)
	}
	in := e.NewIntent(0)
	first := Last(t.Converge(ctx, "key lifetime: create", in, func(s *driver.Send) { s.NoHistory = true }))
	if first.PaymentID == "" {
		return "key lifetime not measured (the create named no payment)"
	}
	before, _ := e.ChargesFor(ctx, in)
	elapsed, prev := time.Duration(0), time.Duration(0)
	step := max(span/8, 50*time.Millisecond)
	for elapsed+step <= span && ctx.Err() == nil {
		if err := e.Wait(ctx, step); err != nil {
			return "key lifetime not measured: " + err.Error()
		}
		prev, elapsed = elapsed, elapsed+step
		a := t.Send(ctx, fmt.Sprintf("key lifetime: retry %s after the create", elapsed), in, func(s *driver.Send) { s.NoHistory = true })
		e.Settle(ctx)
		now, _ := e.ChargesFor(ctx, in)
		if (a.PaymentID != "" && a.PaymentID != first.PaymentID) || len(now) > len(before) {
			return fmt.Sprintf("observed key lifetime between %s and %s (documented key_window %s, retry_horizon %s)", prev, elapsed, w, h)
		}
		step = step * 3 / 2
	}
	return fmt.Sprintf("observed key lifetime at least %s, the longest idemcheck probed within --max-wait (documented key_window %s, retry_horizon %s)", elapsed, w, h)
}
