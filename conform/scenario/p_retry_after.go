package scenario

import (
	"context"
)

func vRetryAfter(ctx context.Context, e *Env, t *T) {
	p := e.Cfg.Proto()
	_, others := conflictRun(ctx, e, t)
	for _, o := range others {
		if o.Status != p.InProgressStatus {
			t.NotApplicable("no in-progress answer to inspect (got %d)", o.Status)
			return
		}
		_, has := o.Header("Retry-After")
		if has != (p.RetryAfter == "required") {
			t.Deviation(t.check.Rule, "Retry-After present=%v, profile %s says %s", has, p.Name, p.RetryAfter)
		}
	}
	t.Passf("Retry-After %s as the profile says", p.RetryAfter)
}
