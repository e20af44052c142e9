package checks

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/faults"
)

// refundCopies is how many copies of a refund the concurrent shape sends.
const refundCopies = 3

var amountRE = regexp.MustCompile(`\{\{\s*amount\s*\}\}`)

// partOf is the partial refund shape's part of a payment: a third, so a
// second refund of it would still fit in what is left of the charge.
func partOf(amount int64) int64 { return max(1, amount/3) }

// partialOff says why the partial refund shape cannot be drawn ("" when it
// can): it needs the refund shapes and a refund request that carries
// {{amount}}.
func partialOff(e *scenario.Env, refund string) string {
	switch {
	case refund != "":
		return refund
	case !amountRE.MatchString(e.Cfg.Refund.Path + e.Cfg.Refund.Body):
		return "the refund request carries no {{amount}}, so it cannot ask for a part"
	}
	return ""
}

// refund carries out a refund shape of a succeeded payment under one key
// (the intent's, as S-multistep derives it): plain, repeated after its PSP
// reply was lost once, or as copies at once; each then retried until a
// final answer.
func (sr *shapeRun) refund(ctx context.Context, e *scenario.Env, t *scenario.T, p Planned, in scenario.Intent, pay string) {
	rc := &refundCase{in: in, name: e.D.Intent(in.Caller, in.Key), pay: pay, key: in.Key + ":refund"}
	step := fmt.Sprintf("intent %d refund", p.N)
	switch p.Shape {
	case ShapeRefundFull:
		rc.atts = append(rc.atts, t.Call(ctx, e.Cfg.Refund, step, in, pay, rc.key))
	case ShapeRefundRepeat, ShapeRefundPartial:
		// Scoped by amount: the refund of the whole charge is of the
		// intent's amount, and no other intent of the run has it; a part
		// is scoped by its own amount.
		amount := in.Meaning.Amount
		if p.Shape == ShapeRefundPartial {
			rc.part = partOf(amount)
			amount = rc.part
			step = fmt.Sprintf("intent %d refund of %d of %d", p.N, rc.part, in.Meaning.Amount)
		}
		f := scenario.ArmPSP(ctx, e, faults.PSPReplyLost, faults.Scope{Op: "refund", Amount: amount, Times: 1})
		start := history.Now()
		for i := 0; i < 3; i++ {
			label := step + "; its PSP reply is lost once"
			if i > 0 {
				label = fmt.Sprintf("%s repeated (%d)", step, i)
				_ = scenario.SleepCtx(ctx, 200*time.Millisecond)
			}
			rc.atts = append(rc.atts, t.CallPart(ctx, e.Cfg.Refund, label, in, pay, rc.key, rc.part))
		}
		_ = f.Undo()
		rc.lostFired = f.Fired() > 0
		e.NoteFaultFor(fmt.Sprintf("refund psp reply lost (intent %d)", p.N), rc.name, start, history.Now())
		if !rc.lostFired {
			e.Logf("  chaos: intent %d: the refund's PSP reply was never lost (the refunds were still repeated)", p.N)
		}
	case ShapeRefundConcurrent:
		var mu sync.Mutex
		scenario.AtCopies(refundCopies, func(i int) {
			a := t.Call(ctx, e.Cfg.Refund, fmt.Sprintf("%s, copy %d/%d at once", step, i+1, refundCopies), in, pay, rc.key)
			mu.Lock()
			rc.atts = append(rc.atts, a)
			mu.Unlock()
		})
	}
	if !scenario.Final(scenario.Last(rc.atts)) || p.Shape == ShapeRefundConcurrent {
		rc.atts = append(rc.atts, t.ConvergePart(ctx, e.Cfg.Refund, step, in, pay, rc.key, rc.part)...)
	}
	sr.mu.Lock()
	sr.refunds = append(sr.refunds, rc)
	sr.mu.Unlock()
}

// judgeRefunds holds the refund shapes against the PSP's refunds once the
// target went quiet: one refund request (one key) carried out once, and the
// checker's refund rules over the whole history with the refunds (never
// more than the charge: double-refund), a refund answered succeeded that
// never reached the PSP (lost-effect), and a refund the PSP made whose
// caller was told it did not happen (failed-but-charged).
func (sr *shapeRun) judgeRefunds(ctx context.Context, e *scenario.Env, t *scenario.T) {
	if len(sr.refunds) == 0 || e.PSP == nil {
		return
	}
	e.Settle(ctx)
	inHistory := map[string]bool{}
	for _, op := range t.History {
		if op.Op == history.OpCharge && op.Output != nil && op.Output.ChargeID != "" {
			inHistory[op.Output.ChargeID] = true
		}
	}
	var extra history.History
	n, outside := 0, 0
	for _, rc := range sr.refunds {
		charges, _ := e.ChargesFor(ctx, rc.in)
		refunds := scenario.RefundsOf(e, charges)
		n += len(refunds)
		if len(refunds) == 0 {
			if s := scenario.FirstSucceeded(rc.atts); s != nil {
				f := t.Safety(checker.KindLostEffect, scenario.RuleCapture, "the refund of %s was answered succeeded (#%d) but no refund reached the PSP", rc.pay, s.Seq)
				f.Intent, f.Amount, f.Seqs = rc.name, rc.in.Meaning.Amount, scenario.SeqsOf(rc.atts)
			}
			continue
		}
		toldNotRefunded(t, rc, refunds)
		if d := distinctRefunds(refunds); len(d) > 1 {
			// One refund request (one key, repeated or copied) carried out
			// more than once, as S-multistep and S-capture hold it, even
			// when the parts stay within the charge and name no request.
			f := t.Safety(checker.KindDoubleRefund, scenario.RuleCapture, "%d PSP refunds for one refund request of payment %s (sent %d times under key %s; PSP keys %s): a repeated refund moved money again",
				len(d), rc.pay, len(rc.atts), rc.key, strings.Join(scenario.PSPKeys(d), ", "))
			f.Intent, f.Amount, f.Charges, f.Seqs = rc.name, rc.in.Meaning.Amount, d, scenario.SeqsOf(rc.atts)
		}
		for _, r := range refunds {
			if !inHistory[r.Input.ChargeID] {
				// The checker's rule would read a refund of a charge the
				// history lacks as money returned that was never taken.
				outside++
				continue
			}
			extra = append(extra, scenario.CaptureTruth([]history.Op{r}, rc.name)...)
		}
	}
	if len(extra) > 0 {
		h := append(append(history.History{}, t.History...), extra...)
		t.Report(checker.Check(h, checker.CheckOptions{Timeout: 10 * time.Second, Faults: e.FaultWindows()}), "history with the refunds")
	}
	what := fmt.Sprintf("%d PSP refund(s) for %d refund shape(s)", n, len(sr.refunds))
	if outside > 0 {
		what += fmt.Sprintf(" (%d of a charge judged by count, not by the checker)", outside)
	}
	t.Counted("%s", what)
}

// toldNotRefunded flags each answer to the refund under its key that said,
// in words the outcome rules read, that it did not happen (failed, void,
// mismatch) although the PSP refunded. Unlike S-capture it reads nothing
// into an answer the rules do not map: a service's refund answers are not
// its create answers, and "error" there says nothing.
func toldNotRefunded(t *scenario.T, rc *refundCase, refunds []history.Op) {
	var bad []string
	var seqs []int
	for _, a := range rc.atts {
		if scenario.Final(a) && a.Outcome != history.OutcomeSucceeded {
			bad = append(bad, fmt.Sprintf("#%d %s", a.Seq, scenario.DescribeResp(a)))
			seqs = append(seqs, a.Seq)
		}
	}
	if len(bad) == 0 {
		return
	}
	f := t.Safety(checker.KindFailedButRefunded, scenario.RuleCapture, "the PSP carried out the refund of %s (PSP keys %s), but with the same key %s the client was told %s",
		rc.pay, strings.Join(scenario.PSPKeys(refunds), ", "), rc.key, strings.Join(bad, ", "))
	f.Intent, f.Amount, f.Charges, f.Seqs = rc.name, rc.in.Meaning.Amount, refunds, seqs
}

// distinctRefunds drops a refund the PSP logged again under one PSP key or
// refund id (a replay), as the checker's refund rules do.
func distinctRefunds(refunds []history.Op) []history.Op {
	seen := map[string]bool{}
	var out []history.Op
	for _, r := range refunds {
		id := "key:" + r.Input.PSPKey
		if r.Output != nil && r.Output.RefundID != "" {
			if seen["id:"+r.Output.RefundID] {
				continue
			}
			seen["id:"+r.Output.RefundID] = true
		}
		if r.Input.PSPKey != "" && seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, r)
	}
	return out
}

// shapesNotDrawn says what the run could not send, and why.
func shapesNotDrawn(e *scenario.Env, off map[string]string) []string {
	out := notDrawn(off)
	if e.Cfg.Capture != nil {
		out = append(out, "authorize/capture not drawn: the chaos check judges creates with the checker's intent model, which holds a success to a charge made by then, and an authorization moves no money before its capture (S-capture judges them from the PSP's ground truth)")
	}
	return out
}

// verdict adds the shapes to the chaos verdict: which happened and how
// often, which were drawn and never happened (not tested), and which the
// config did not let the run draw.
func (sr *shapeRun) verdict(t *scenario.T, off map[string]string) {
	done, never := sr.tally.summary()
	if done != "" {
		t.Counted("shapes carried out: %s", done)
	}
	if never != "" {
		t.Counted("shapes drawn but never carried out, so not tested: %s", never)
	}
	if l := shapesNotDrawn(t.Env, off); len(l) > 0 {
		t.Counted("%s", strings.Join(l, "; "))
	}
}
