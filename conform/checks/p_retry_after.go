package checks

import (
	"context"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

func vRetryAfter(ctx context.Context, e *scenario.Env, t *scenario.T) {
	p := e.Cfg.Proto()
	c := scenario.ConflictRun(ctx, e, t)
	o := c.Second
	if o == nil {
		return
	}
	if o.Status != p.InProgressStatus {
		t.NotApplicable("no in-progress answer to inspect (got %d)", o.Status)
		return
	}
	_, has := o.Header("Retry-After")
	if has != (p.RetryAfter == "required") {
		t.Deviation(t.Check.Rule, "Retry-After present=%v, profile %s says %s", has, p.Name, p.RetryAfter)
	}
	t.Passf("Retry-After %s as the profile says", p.RetryAfter)
}
