package checks

import (
	"context"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

func vConflict(ctx context.Context, e *scenario.Env, t *scenario.T) {
	p := e.Cfg.Proto()
	in, others := scenario.ConflictRun(ctx, e, t)
	for _, o := range others {
		if o.Status != p.InProgressStatus {
			t.Deviation(t.Check.Rule, "the concurrent duplicate got %d %s, profile %s expects %d", o.Status, o.Outcome, p.Name, p.InProgressStatus)
		}
	}
	t.Judge(ctx, nil, in)
	t.Passf("concurrent duplicate got %d", p.InProgressStatus)
}
