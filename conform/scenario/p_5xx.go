package scenario

import (
	"context"
)

func v5xx(ctx context.Context, e *Env, t *T) {
	p := e.Cfg.Proto()
	in := e.NewIntent(0)
	f := e.PSP.Faults().Error500BeforeCharge(fakepsp500(in))
	defer f.Remove()
	a := t.Send(ctx, "PSP fails before charging", in, nil)
	f.Remove()
	if a.Status < 500 {
		t.NotApplicable("the target answered %d, not a 5xx, to a PSP failure", a.Status)
		return
	}
	b := t.Send(ctx, "retry", in, nil)
	stored := b.Status == a.Status && b.RespBody == a.RespBody
	if stored != (p.Stores5xx == "stored") {
		t.Deviation(t.check.Rule, "5xx stored=%v (retry answered %d), profile %s says %s", stored, b.Status, p.Name, p.Stores5xx)
	}
	t.Passf("5xx %s", p.Stores5xx)
}
