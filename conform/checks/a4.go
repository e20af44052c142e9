package checks

import (
	"context"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/faults"
)

func runA4(ctx context.Context, e *scenario.Env, t *scenario.T) {
	in := e.NewIntent(0)
	f := scenario.ArmPSP(ctx, e, faults.PSPHoldReply, faults.Scope{Amount: in.Meaning.Amount, Times: 1})
	defer f.Undo()
	start := history.Now()
	first := scenario.Background(ctx, t, "owner on instance 0 charges at the PSP, then is frozen", in, func(s *driver.Send) { s.Timeout = 4 * e.Cfg.TimeoutD() })
	if err := scenario.WaitFired(ctx, f, e.Cfg.TimeoutD()); err != nil {
		scenario.NoCharge(e, t, "hold the PSP's reply, freeze the owner", in, <-first)
		return
	}
	if err := e.Procs[0].Pause(); err != nil {
		t.Errorf("pause: %v", err)
		return
	}
	f.Release() // the PSP's answer now waits in the frozen owner's socket
	rs := t.RetryUntilFinal(ctx, "retry on instance 1 while the owner is frozen", in, 60, 250*time.Millisecond,
		func(s *driver.Send) { s.Instance = 1 })
	if err := e.Procs[0].Resume(); err != nil {
		t.Errorf("resume: %v", err)
	}
	e.NoteFault("A4 owner frozen", start, history.Now())
	z := <-first
	after := t.Send(ctx, "read the answer once more on instance 1", in, func(s *driver.Send) { s.Instance = 1 })
	t.Judge(ctx, nil, in)
	t.Passf("takeover answered %s; the zombie answered %s; later %s", scenario.DescribeResp(scenario.Last(rs)), scenario.DescribeResp(z), scenario.DescribeResp(after))
}
