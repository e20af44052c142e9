package checker

import (
	"fmt"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/checker/history"
)

// failedButCharged is the convergence invariant at quiescence: an intent the
// PSP charged, with the charge not refunded in full, must end with the client
// told "succeeded". An intent whose last answer is failed, an error or still
// processing (or that got no answer at all) is failed-but-charged: the buyer
// paid and the service never said so, and a buyer who is not told pays again.
//
// What counts as the client's final word:
//   - an "error" answer tells the client nothing (the intent model reads it as
//     unknown too), so it does not undo a "succeeded" heard before it; with
//     no success at all, an error is as bad as any other non-answer;
//   - "mismatch" answers another request that reused the key, not this
//     payment, and is left out; so is any answer to a create whose
//     fingerprint differs from the one answered succeeded (an in_progress to
//     another body is about that body, not this payment);
//   - a non-success answer that overlaps a success (called before the success
//     returned) may be ordered before it, as the model may: only a question
//     asked after the success was heard and answered processing, in_progress
//     or failed counts against it (the model names that inconsistent-answer
//     too);
//   - an intent answered "void" is left to effect-after-void, which any charge
//     of a void intent already is;
//   - an intent no client op names (a history of effects only) is not judged:
//     nothing was recorded of what the client heard.
func failedButCharged(h history.History, l *links) []Violation {
	// Two passes: the charged, unrefunded intents first, so client ops are
	// judged only for intents that can break the rule.
	refunded := map[string]int64{} // charge id -> amount refunded
	for i := range h {
		if h[i].Op == history.OpRefund && h[i].Input.Amount != nil {
			refunded[h[i].Input.ChargeID] += *h[i].Input.Amount
		}
	}
	charges := l.ids.group(h, func(op *history.Op) bool { return op.Op == history.OpCharge })
	open := make([][]int, len(charges))
	someOpen := false
	for id, cs := range charges {
		if len(cs) > 0 {
			open[id] = uncovered(h, cs, refunded)
			someOpen = someOpen || len(open[id]) > 0
		}
	}
	if !someOpen {
		return nil
	}
	answers := l.ids.group(h, func(op *history.Op) bool { return op.Op == history.OpCreate || op.Op == history.OpResolve })
	var vs []Violation
	for id, ops := range answers {
		if len(open[id]) == 0 || len(ops) == 0 {
			continue
		}
		if v, bad := judgeFinal(h, l.ids.names[id], open[id], ops); bad {
			vs = append(vs, v)
		}
	}
	sort.Slice(vs, func(a, b int) bool { return vs[a].Intent < vs[b].Intent })
	return vs
}

// uncovered returns the charges whose refunds do not add up to their amount.
func uncovered(h history.History, cs []int, refunded map[string]int64) []int {
	var out []int
	for _, i := range cs {
		id := ""
		if h[i].Output != nil {
			id = h[i].Output.ChargeID
		}
		if id != "" && h[i].Input.Amount != nil && refunded[id] >= *h[i].Input.Amount {
			continue
		}
		out = append(out, i)
	}
	return out
}

// judgeFinal decides one charged intent from its client ops.
func judgeFinal(h history.History, intent string, open, ops []int) (Violation, bool) {
	ops = ownerAnswers(h, ops)
	var lastOK *int64
	var final = -1 // latest-returning answer other than mismatch
	for _, i := range ops {
		op := &h[i]
		if op.Return == nil || op.Output == nil {
			continue
		}
		switch op.Output.Outcome {
		case history.OutcomeVoid:
			return Violation{}, false
		case history.OutcomeMismatch:
			continue
		case history.OutcomeSucceeded:
			if lastOK == nil || *op.Return > *lastOK {
				lastOK = op.Return
			}
		}
		if final < 0 || *op.Return > *h[final].Return {
			final = i
		}
	}
	var against []int
	if lastOK != nil {
		for _, i := range ops {
			op := &h[i]
			if op.Return == nil || op.Output == nil || op.Call <= *lastOK {
				continue
			}
			switch op.Output.Outcome {
			case history.OutcomeFailed, history.OutcomeProcessing, history.OutcomeInProgress:
				against = append(against, i)
			}
		}
		if len(against) == 0 {
			return Violation{}, false
		}
	}
	heard := "no answer (every attempt timed out)"
	switch {
	case len(against) > 0:
		heard = fmt.Sprintf("%q after it had heard succeeded", h[against[len(against)-1]].Output.Outcome)
	case final >= 0:
		heard = fmt.Sprintf("%q", h[final].Output.Outcome)
	}
	var names []string
	for _, i := range open {
		names = append(names, chargeName(h[i]))
	}
	idx := append(append([]int(nil), open...), ops...)
	return Violation{
		Kind: KindFailedButCharged, Intent: intent, Ops: opsAt(h, idx),
		Message: fmt.Sprintf("intent %s: the PSP charged (%s) and nothing refunded it, but the client's final answer was %s; answers: %s",
			intent, strings.Join(names, "; "), heard, answerList(h, ops)),
	}, true
}

func chargeName(op history.Op) string {
	id := "charge"
	if op.Output != nil && op.Output.ChargeID != "" {
		id = op.Output.ChargeID
	}
	amount := "?"
	if op.Input.Amount != nil {
		amount = fmt.Sprint(*op.Input.Amount)
	}
	return fmt.Sprintf("%s of %s under PSP key %q", id, amount, op.Input.PSPKey)
}

// answerList renders the client's ops in call order: "create processing
// pay_7, create ?, resolve succeeded".
func answerList(h history.History, ops []int) string {
	var parts []string
	for _, op := range opsAt(h, ops) {
		s := op.Op + " "
		switch {
		case op.Return == nil || op.Output == nil:
			s += "?"
		default:
			s += op.Output.Outcome
			if op.Output.PaymentID != "" {
				s += " " + op.Output.PaymentID
			}
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// ownerAnswers drops the creates whose fingerprint differs from the one a
// create was answered succeeded with: they asked about another request. With
// no create answered succeeded, every op is kept.
func ownerAnswers(h history.History, ops []int) []int {
	owner := ""
	for _, i := range ops {
		op := &h[i]
		if op.Op == history.OpCreate && op.Return != nil && op.Output != nil && op.Output.Outcome == history.OutcomeSucceeded {
			owner = op.Input.Fingerprint
			break
		}
	}
	other := false
	for _, i := range ops {
		other = other || (h[i].Op == history.OpCreate && h[i].Input.Fingerprint != owner)
	}
	if owner == "" || !other {
		return ops // nothing to drop: no copy
	}
	out := make([]int, 0, len(ops))
	for _, i := range ops {
		if h[i].Op == history.OpCreate && h[i].Input.Fingerprint != owner {
			continue
		}
		out = append(out, i)
	}
	return out
}
