package scenario

import (
	"context"
)

func vConflict(ctx context.Context, e *Env, t *T) {
	p := e.Cfg.Proto()
	in, others := conflictRun(ctx, e, t)
	for _, o := range others {
		if o.Status != p.InProgressStatus {
			t.Deviation(t.check.Rule, "the concurrent duplicate got %d %s, profile %s expects %d", o.Status, o.Outcome, p.Name, p.InProgressStatus)
		}
	}
	t.Judge(ctx, nil, in)
	t.Passf("concurrent duplicate got %d", p.InProgressStatus)
}
