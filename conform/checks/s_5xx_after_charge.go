package checks

import (
	"context"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/faults"
)

func run5xxAfterCharge(ctx context.Context, e *scenario.Env, t *scenario.T) {
	in := e.NewIntent(0)
	f := scenario.ArmPSP(ctx, e, faults.PSP500AfterCharge, faults.Scope{Amount: in.Meaning.Amount, Times: 1})
	defer f.Undo()
	start := history.Now()
	a := t.Send(ctx, "PSP charges, then answers 500", in, nil)
	e.NoteFault("PSP 500 after charge", start, history.Now())
	if !scenario.FiredOrErr(t, f, "PSP 500 after charge", in.Meaning.Amount) {
		return
	}
	rs := t.RetryUntilFinal(ctx, "client retries", in, 6, 200*time.Millisecond, nil)
	t.Judge(ctx, nil, in)
	t.Passf("first answer %s, final %s", scenario.DescribeResp(a), scenario.DescribeResp(scenario.Last(rs)))
}
