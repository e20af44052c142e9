package checks

import (
	"context"

	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/faults"
)

func v5xx(ctx context.Context, e *scenario.Env, t *scenario.T) {
	p := e.Cfg.Proto()
	in := e.NewIntent(0)
	f := scenario.ArmPSP(ctx, e, faults.PSP500BeforeCharge, scenario.FakePSP500(in))
	defer f.Undo()
	a := t.Send(ctx, "PSP fails before charging", in, nil)
	f.Undo()
	if a.Status < 500 {
		t.NotApplicable("the target answered %d, not a 5xx, to a PSP failure", a.Status)
		return
	}
	b := t.Send(ctx, "retry", in, nil)
	stored := b.Status == a.Status && b.RespBody == a.RespBody
	if stored != (p.Stores5xx == "stored") {
		t.Deviation(t.Check.Rule, "5xx stored=%v (retry answered %d), profile %s says %s", stored, b.Status, p.Name, p.Stores5xx)
	}
	t.Passf("5xx %s", p.Stores5xx)
}
