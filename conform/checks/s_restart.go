package checks

import (
	"context"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

func runRestart(ctx context.Context, e *scenario.Env, t *scenario.T) {
	in := e.NewIntent(0)
	a := scenario.Last(t.RetryUntilFinal(ctx, "first attempt", in, 10, 150*time.Millisecond, nil))
	start := history.Now()
	if err := e.Procs[0].Restart(ctx); err != nil {
		t.Errorf("restart: %v", err)
		return
	}
	if err := e.WaitReady(ctx, 0); err != nil {
		t.Errorf("target did not come back after restart: %v", err)
		return
	}
	e.NoteFault("restart", start, history.Now())
	b := scenario.Last(t.RetryUntilFinal(ctx, "retry after restart", in, 10, 150*time.Millisecond, nil))
	if a.PaymentID != "" && b.PaymentID != "" && a.PaymentID != b.PaymentID {
		f := t.Safety(checker.KindInconsistentAnswer, "payment check: restart", "payment %s before the restart, %s after, for one key", a.PaymentID, b.PaymentID)
		f.Intent, f.Seqs = a.Intent, []int{a.Seq, b.Seq}
	}
	t.Judge(ctx, nil, in)
	t.Passf("before restart %s, after %s", scenario.DescribeResp(a), scenario.DescribeResp(b))
}
