package checks

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/faults"
)

func needRefund(e *scenario.Env) string {
	if e.Cfg.Refund == nil {
		return "no refund request in the config"
	}
	return scenario.NeedPSP(e)
}

// MultiStepCheck: create, then refund (its PSP reply lost once), each step
// repeated; no repeat may move money again.
func MultiStepCheck() *scenario.Check {
	return &scenario.Check{ID: "S-multistep", Title: "create then refund, each step repeated (refund's PSP reply lost)", Level: scenario.Safety,
		Rule: "payment check: multi-step flows; SCENARIOS.md B6", Needs: needRefund, Run: runMultiStep}
}

func refundsFor(e *scenario.Env, in scenario.Intent) []history.Op {
	amount := in.Meaning.Amount
	charges, _ := e.ChargesFor(context.Background(), in)
	var ids []string
	for _, c := range charges {
		if c.Output != nil {
			ids = append(ids, c.Output.ChargeID)
		}
	}
	var out []history.Op
	for _, r := range e.PSP.Refunds() {
		if (r.Input.Amount != nil && *r.Input.Amount == amount) || (r.Input.ChargeID != "" && slices.Contains(ids, r.Input.ChargeID)) {
			out = append(out, r)
		}
	}
	return out
}

func runMultiStep(ctx context.Context, e *scenario.Env, t *scenario.T) {
	in := e.NewIntent(0)
	a := scenario.SendUntilFinal(ctx, t, "create", in, nil)
	if a.Outcome != history.OutcomeSucceeded || a.PaymentID == "" {
		// The service's answer, not idemcheck, left nothing to refund.
		t.Inconclusive("the create succeeded with a payment id, so there was a charge to refund", "it was answered %s", scenario.DescribeResp(a))
		return
	}
	f := scenario.ArmPSP(ctx, e, faults.PSPReplyLost, faults.Scope{Op: "refund", Times: 1})
	defer f.Undo()
	key := in.Key + ":refund"
	var rs []*driver.Attempt
	for i := 0; i < 4; i++ {
		step := "refund"
		if i > 0 {
			step = fmt.Sprintf("refund repeated (%d)", i)
		}
		r := e.D.Call(ctx, e.Cfg.Refund, t.Check.ID+": "+step, 0, 0, a.PaymentID, key)
		e.Logf("  %s #%d %s -> %s", t.Check.ID, r.Seq, step, scenario.DescribeResp(r))
		rs = append(rs, r)
		time.Sleep(200 * time.Millisecond)
	}
	if f.Fired() == 0 {
		// The service made no PSP refund: nothing was lost to repeat.
		t.Inconclusive("the fault (refund reply lost) fired", "the service made no PSP refund of payment %s: its refund calls were answered %s; is the refund request (refund.path) right?",
			a.PaymentID, scenario.Summarize(rs))
		return
	}
	again := t.Send(ctx, "create repeated after the refund", in, nil)
	// The refund may settle asynchronously (a resolver): wait for it, bounded.
	deadline := time.Now().Add(5 * time.Second)
	for len(refundsFor(e, in)) == 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	t.Judge(ctx, nil, in)
	refunds := refundsFor(e, in)
	if len(refunds) > 1 {
		var seqs []int
		for _, r := range rs {
			seqs = append(seqs, r.Seq)
		}
		fd := t.Safety("double-refund", "payment check: multi-step flows; SCENARIOS.md B6",
			"%d PSP refunds for payment %s (PSP keys %v): a repeated refund moved money again", len(refunds), a.PaymentID, scenario.PSPKeys(refunds))
		fd.Intent, fd.Amount, fd.Charges, fd.Seqs = a.Intent, in.Meaning.Amount, refunds, seqs
	}
	if len(refunds) == 0 {
		t.Inconclusive("a refund of payment "+a.PaymentID+" stood at the PSP to judge repeats against", "none was found within 5s of the service's refund calls (answered %s)", scenario.Summarize(rs))
	}
	t.Passf("%d refund(s) at the PSP across %d refund calls; the repeated create answered %s", len(refunds), len(rs), scenario.DescribeResp(again))
}
