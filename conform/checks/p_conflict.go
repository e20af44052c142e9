package checks

import (
	"context"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

func vConflict(ctx context.Context, e *scenario.Env, t *scenario.T) {
	p := e.Cfg.Proto()
	c := scenario.ConflictRun(ctx, e, t)
	t.Judge(ctx, nil, c.In)
	if c.Second == nil {
		return
	}
	if b := c.Second; b.Status != p.InProgressStatus {
		when := "while the first was held"
		if c.Waited {
			when = "only once the first was let go (it waited on the first)"
		}
		t.Deviation(t.Check.Rule, "the concurrent duplicate got %d %s %s, profile %s expects %d; %s",
			b.Status, b.Outcome, when, p.Name, p.InProgressStatus, c.Order)
	}
	t.Passf("concurrent duplicate got %d; %s", p.InProgressStatus, c.Order)
}
