package checks

import (
	"context"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

func runA6(ctx context.Context, e *scenario.Env, t *scenario.T) {
	// Different bodies under one key.
	in1 := e.NewIntent(0)
	in2 := e.NewIntent(1)
	in2.Key = in1.Key
	a1 := scenario.Last(t.RetryUntilFinal(ctx, e.Cfg.Callers[0].Name+" uses the key", in1, 10, 150*time.Millisecond, nil))
	a2 := scenario.Last(t.RetryUntilFinal(ctx, e.Cfg.Callers[1].Name+" uses the same key, another body", in2, 10, 150*time.Millisecond, nil))
	crossed(t, a1, a2)
	if a2.Outcome == history.OutcomeMismatch {
		f := t.Safety(checker.KindInconsistentAnswer, "SCENARIOS.md A6 (keys scoped to the caller)",
			"%s's first use of the key was answered as a mismatch with %s's request: keys are not scoped to the caller", a2.Caller, a1.Caller)
		f.Intent, f.Seqs = a2.Intent, []int{a1.Seq, a2.Seq}
	}
	// The same body under one key.
	in3 := e.NewIntent(0)
	in4 := in3
	in4.Caller = 1
	b1 := scenario.Last(t.RetryUntilFinal(ctx, e.Cfg.Callers[0].Name+" uses a key", in3, 10, 150*time.Millisecond, nil))
	b2 := scenario.Last(t.RetryUntilFinal(ctx, e.Cfg.Callers[1].Name+" uses the same key and body", in4, 10, 150*time.Millisecond, nil))
	crossed(t, b1, b2)
	t.Judge(ctx, nil, in1, in2, in3, in4)
	t.Passf("each caller got its own payment (%s / %s; %s / %s)", a1.PaymentID, a2.PaymentID, b1.PaymentID, b2.PaymentID)
}

func crossed(t *scenario.T, a, b *driver.Attempt) {
	if a.PaymentID != "" && a.PaymentID == b.PaymentID {
		f := t.Safety(checker.KindInconsistentAnswer, "SCENARIOS.md A6 (keys scoped to the caller)",
			"%s received %s's answer: payment %s", b.Caller, a.Caller, a.PaymentID)
		f.Intent, f.Seqs = b.Intent, []int{a.Seq, b.Seq}
	}
}
