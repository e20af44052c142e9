package checks

import (
	"context"

	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/faults"
)

// v5xx asks whether a retry after a 5xx runs the payment again. What the
// retry did at the PSP says so, not its answer: a service that stores
// nothing and re-executes can still answer the same 5xx byte for byte (the
// PSP replays its stored 500 under the key it was sent), and that is no
// stored answer.
func v5xx(ctx context.Context, e *scenario.Env, t *scenario.T) {
	p := e.Cfg.Proto()
	in := e.NewIntent(0)
	f := scenario.ArmPSP(ctx, e, faults.PSP500BeforeCharge, scenario.FakePSP500(in))
	defer f.Undo()
	a := t.Send(ctx, "PSP fails before charging", in, nil)
	f.Undo()
	if scenario.Unserved(e, t, "the create", a) {
		return
	}
	if a.Status < 500 {
		t.NotApplicable("the target answered %d, not a 5xx, to a PSP failure", a.Status)
		return
	}
	if e.Front == nil {
		t.Inconclusive("the retry's PSP requests were seen", "idemcheck does not stand between this target and its PSP")
		return
	}
	seen := e.Front.Len()
	b := t.Send(ctx, "retry", in, nil)
	calls := scenario.OrderRequests(e.Front.Exchanges()[seen:], in)
	var stored bool
	switch {
	case calls > 0:
		stored = false
	case b.Status == a.Status && b.RespBody == a.RespBody:
		stored = true
	default:
		t.Inconclusive("the retry either reached the PSP or was answered as the 5xx was",
			"it made no PSP request of order %s and answered %d, where the 5xx was %d", in.Meaning.OrderID, b.Status, a.Status)
		return
	}
	if stored != (p.Stores5xx == "stored") {
		t.Deviation(t.Check.Rule, "5xx stored=%v (the retry made %d PSP request(s) of order %s and answered %d), profile %s says %s",
			stored, calls, in.Meaning.OrderID, b.Status, p.Name, p.Stores5xx)
	}
	t.Passf("5xx %s (the retry made %d PSP request(s))", p.Stores5xx, calls)
}
