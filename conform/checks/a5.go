package checks

import (
	"context"
	"fmt"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

func runA5(ctx context.Context, e *scenario.Env, t *scenario.T) {
	in := e.NewIntent(0)
	first := scenario.Last(t.Converge(ctx, "original", in, nil))
	changed := in
	changed.Meaning.Amount = e.NewIntent(0).Meaning.Amount
	m := t.Send(ctx, "same key, amount changed", changed, nil)
	mismatchAccepted(t, first, m, in, changed)
	// The same request with its JSON members reordered is the same payment.
	r := t.Send(ctx, "same request, members reordered", in, func(s *driver.Send) { s.Reorder = true })
	refused(t, first, r, "a true retry with its JSON members reordered")
	why := fmt.Sprintf("mismatch answered %s; reordered retry answered %s", scenario.DescribeResp(m), scenario.DescribeResp(r))
	// Fields the user declares volatile may change between retries.
	if vf := e.Cfg.Create.VolatileFields; len(vf) > 0 {
		v := t.Send(ctx, "same request, volatile fields changed", in, func(s *driver.Send) { s.Volatile = vf })
		refused(t, first, v, fmt.Sprintf("a retry that changed only the volatile fields %v", vf))
		why += fmt.Sprintf("; retry with %v changed answered %s", vf, scenario.DescribeResp(v))
	}
	t.Judge(ctx, nil, in, changed) // a charge of the changed amount is mismatch-accepted
	t.Passf("%s", why)
}

// mismatchAccepted flags a request of another amount under first's key
// (changed) that was answered as a success, or with the first payment: it
// was taken as the first request whatever the status says. The chaos
// check's changed-amount shape uses it too.
func mismatchAccepted(t *scenario.T, first, m *driver.Attempt, in, changed scenario.Intent) {
	samePayment := first.PaymentID != "" && m.PaymentID == first.PaymentID
	if m.Outcome == history.OutcomeSucceeded || m.Outcome == history.OutcomeProcessing || (samePayment && m.Outcome != history.OutcomeMismatch) {
		f := t.Safety(checker.KindMismatchAccepted, "SCENARIOS.md A5; HISTORY.md mismatch",
			"the key first used for amount %d was accepted for amount %d: answered %s", in.Meaning.Amount, changed.Meaning.Amount, scenario.DescribeResp(m))
		f.Intent, f.Seqs = m.Intent, []int{first.Seq, m.Seq}
	}
}

// refused flags a true retry the target refused: answered a mismatch (by
// the outcome rules, whatever the status), or a 4xx the first request did
// not get.
func refused(t *scenario.T, first, r *driver.Attempt, what string) {
	rejected := r.Outcome == history.OutcomeMismatch ||
		(!r.Unknown() && r.Status >= 400 && r.Status < 500 && r.Outcome != history.OutcomeInProgress && r.Status != first.Status)
	if rejected {
		f := t.Safety(checker.KindFalseMismatch, "SCENARIOS.md A5 (fingerprint over meaning, not bytes)",
			"%s was refused: answered %s (the first request %s)", what, scenario.DescribeResp(r), scenario.DescribeResp(first))
		f.Intent, f.Seqs = r.Intent, []int{first.Seq, r.Seq}
	}
}
