package checks

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

func runA5(ctx context.Context, e *scenario.Env, t *scenario.T) {
	in := e.NewIntent(0)
	first := scenario.Last(t.Converge(ctx, "original", in, nil))
	// Each meaning field changed alone under the same key: a fingerprint
	// that leaves any one of them out accepts that request.
	fields, skipped := e.MeaningFields()
	sent := []scenario.Intent{in}
	var answers []string
	for _, field := range fields {
		changed := e.Changed(in, field)
		m := t.Send(ctx, "same key, "+field+" changed", changed, nil)
		mismatchAccepted(t, first, m, in, changed)
		sent = append(sent, changed)
		answers = append(answers, fmt.Sprintf("%s changed answered %s", field, scenario.DescribeResp(m)))
	}
	// The same request with its JSON members reordered is the same payment.
	r := t.Send(ctx, "same request, members reordered", in, func(s *driver.Send) { s.Reorder = true })
	refused(t, first, r, "a true retry with its JSON members reordered")
	why := fmt.Sprintf("%s; reordered retry answered %s", strings.Join(answers, "; "), scenario.DescribeResp(r))
	// Fields the user declares volatile may change between retries.
	if vf := e.Cfg.Create.VolatileFields; len(vf) > 0 {
		v := t.Send(ctx, "same request, volatile fields changed", in, func(s *driver.Send) { s.Volatile = vf })
		refused(t, first, v, fmt.Sprintf("a retry that changed only the volatile fields %v", vf))
		why += fmt.Sprintf("; retry with %v changed answered %s", vf, scenario.DescribeResp(v))
	}
	for _, f := range slices.Sorted(maps.Keys(skipped)) {
		why += fmt.Sprintf("; %s not changed: %s", f, skipped[f])
	}
	t.Judge(ctx, nil, sent...) // a charge of a changed request is mismatch-accepted
	t.Passf("%s", why)
}

// mismatchAccepted flags a request of another amount under first's key
// (changed) that was answered as a success, or with the first payment: it
// was taken as the first request whatever the status says. The chaos
// check's changed-meaning shape uses it too.
func mismatchAccepted(t *scenario.T, first, m *driver.Attempt, in, changed scenario.Intent) {
	samePayment := first.PaymentID != "" && m.PaymentID == first.PaymentID
	if m.Outcome == history.OutcomeSucceeded || m.Outcome == history.OutcomeProcessing || (samePayment && m.Outcome != history.OutcomeMismatch) {
		f := t.Safety(checker.KindMismatchAccepted, "SCENARIOS.md A5; HISTORY.md mismatch",
			"the key was accepted for a request that differs only in %s: answered %s", scenario.ChangedField(in.Meaning, changed.Meaning), scenario.DescribeResp(m))
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
