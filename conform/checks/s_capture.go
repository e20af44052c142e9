package checks

import (
	"context"
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/pspfront"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// CaptureCheck: authorize (a create with manual capture), capture, refund,
// each step first with the PSP's reply lost on every attempt with its PSP
// key, then as concurrent copies, then retried to a final answer. One
// authorization, one charge, one refund per refund request, no step
// answered succeeded that never reached the PSP, and no client told a step
// failed that the PSP carried out.
func CaptureCheck() *scenario.Check {
	return &scenario.Check{ID: "S-capture", Title: "authorize, capture, refund; each step's PSP reply lost, then concurrent copies",
		Level: scenario.Safety, Rule: scenario.RuleCapture, Needs: needCapture, Run: runCapture}
}

func needCapture(e *scenario.Env) string {
	if e.Cfg.Capture == nil {
		return "no capture request in the config"
	}
	if why := scenario.NeedPSP(e); why != "" {
		return why
	}
	if e.Front == nil {
		return "needs the recording PSP front idemcheck puts before the fakepsp it starts"
	}
	return ""
}

func runCapture(ctx context.Context, e *scenario.Env, t *scenario.T) {
	in := e.NewIntent(0)
	name := e.D.Intent(in.Caller, in.Key)
	pay, auths, ok := authorizeStep(ctx, e, t, in)
	if !ok {
		return
	}
	if pre, _ := e.ChargesFor(ctx, in); len(pre) > 0 {
		t.Inconclusive(fmt.Sprintf("order %s was charged at the authorize (%s)", in.Meaning.OrderID, scenario.ChargeWords(pre)),
			"the authorize request must make the service create its payment with capture_method=manual (see authorize in docs/CONFIG.md)")
		return
	}
	caps, capAtts, ok := captureStep(ctx, e, t, in, pay, auths)
	truth := scenario.CaptureTruth(caps, name)
	e.Judged(in.Meaning.OrderID, 1, len(caps), -1)
	why := []string{fmt.Sprintf("%d authorization(s) %v, %d capture(s) for %s", len(auths), auths, len(caps), pay)}
	if ok && e.Cfg.Refund != nil {
		refunds, w := refundStep(ctx, e, t, in, pay, auths, caps)
		truth = append(truth, scenario.CaptureTruth(refunds, name)...)
		why = append(why, w)
	} else if ok {
		why = append(why, "no refund request in the config: the refund step was not run")
	}
	if f := scenario.FirstSucceeded(capAtts); f == nil && len(caps) == 0 {
		t.Inconclusive("no capture reached the PSP and none was answered succeeded", "is the capture request right (capture.path, capture.key)?")
	}
	t.KeepHistory(truth)
	t.Passf("%s", strings.Join(why, "; "))
}

// authorizeStep authorizes in: its first attempt loses the PSP's reply on
// every try with its PSP key, copies follow at once, then retries until a
// final answer. It returns the payment id answered and the PSP
// authorizations of the order.
func authorizeStep(ctx context.Context, e *scenario.Env, t *scenario.T, in scenario.Intent) (string, []string, bool) {
	mod := func(s *driver.Send) { s.Template = e.Cfg.AuthorizeRequest() }
	r := e.Front.Add(in.Meaning.OrderID, in.Meaning.Amount, pspfront.Lose)
	start := history.Now()
	first := t.Send(ctx, "authorize; the PSP's reply is lost on every attempt with its key", in, mod)
	r.Stop()
	e.NoteFaultFor("S-capture authorize reply lost", e.D.Intent(in.Caller, in.Key), start, history.Now())
	if r.Fired() == 0 {
		t.Inconclusive("the authorize's PSP reply was never lost", "the target sent no PSP request for order %s (amount %d) and answered %s%s",
			in.Meaning.OrderID, in.Meaning.Amount, scenario.DescribeResp(first), scenario.Hint(e, first))
		return "", nil, false
	}
	scenario.AtCopies(scenario.CopiesPerStep, func(i int) {
		t.Send(ctx, fmt.Sprintf("authorize repeated, copy %d/%d", i+1, scenario.CopiesPerStep), in, mod)
	})
	fin := scenario.Last(t.Converge(ctx, "authorize retried", in, mod))
	auths := scenario.Authorizations(e, in.Meaning.OrderID)
	if len(auths) > 1 {
		f := t.Safety(checker.KindDoubleAuthorization, scenario.RuleCapture,
			"%d authorizations at the PSP for order %s (%s): a repeated authorize held the buyer's funds again", len(auths), in.Meaning.OrderID, strings.Join(auths, ", "))
		f.Intent, f.Amount = e.D.Intent(in.Caller, in.Key), in.Meaning.Amount
	}
	if fin.Outcome != history.OutcomeSucceeded || fin.PaymentID == "" {
		t.Inconclusive("the authorize was not answered succeeded with a payment id",
			"its final answer was %s: add an outcomes rule for what the authorize answers (e.g. status authorized -> succeeded)", scenario.DescribeResp(fin))
		return "", auths, false
	}
	if len(auths) == 0 {
		t.Inconclusive(fmt.Sprintf("no manual-capture authorization of order %s reached the PSP", in.Meaning.OrderID),
			"the authorize request must make the service create its payment with capture_method=manual (see authorize in docs/CONFIG.md)")
		return "", nil, false
	}
	return fin.PaymentID, auths, true
}

// captureStep captures pay under one key: the first attempt's PSP reply is
// lost on every try with its PSP key, copies follow, then retries.
func captureStep(ctx context.Context, e *scenario.Env, t *scenario.T, in scenario.Intent, pay string, auths []string) ([]history.Op, []*driver.Attempt, bool) {
	key := e.NewKey()
	atts, fired := t.LostThenCopies(ctx, e.Cfg.Capture, "capture", in, pay, key, auths)
	name := e.D.Intent(in.Caller, in.Key)
	// What the PSP holds decides, whether or not the fault fired: a capture
	// answered succeeded that never reached the PSP is a lost effect even
	// when there was no PSP request to lose the reply of.
	e.Settle(ctx)
	caps, _ := e.ChargesFor(ctx, in)
	if len(caps) == 0 {
		if s := scenario.FirstSucceeded(atts); s != nil {
			f := t.Safety(checker.KindLostEffect, scenario.RuleCapture, "the capture of %s was answered succeeded (#%d) but no capture reached the PSP", pay, s.Seq)
			f.Intent, f.Amount, f.Seqs = name, in.Meaning.Amount, scenario.SeqsOf(atts)
			return nil, atts, false
		}
	}
	if fired == 0 {
		t.Inconclusive("the capture's PSP reply was never lost", "the target sent no capture of %s to the PSP and answered %s: is the capture request right?",
			strings.Join(auths, ", "), scenario.DescribeResp(atts[0]))
		return nil, atts, false
	}
	if len(caps) > 1 {
		// fakepsp refuses a second capture of one authorization, so a second
		// charge here is a new one: the buyer paid twice for one payment.
		f := t.Safety(checker.KindDoubleCharge, scenario.RuleCapture, "%d charges at the PSP for payment %s (PSP keys %s): the buyer was charged more than once",
			len(caps), pay, strings.Join(scenario.PSPKeys(caps), ", "))
		f.Intent, f.Amount, f.Charges, f.Seqs = name, in.Meaning.Amount, caps, scenario.SeqsOf(atts)
	}
	if len(caps) == 0 {
		return nil, atts, false
	}
	scenario.ToldFailed(t, atts, caps, "capture", pay, key, name, in.Meaning.Amount)
	return caps, atts, true
}

// refundStep refunds pay the same way: one PSP refund per refund request,
// and none answered succeeded that the PSP never made.
func refundStep(ctx context.Context, e *scenario.Env, t *scenario.T, in scenario.Intent, pay string, auths []string, caps []history.Op) ([]history.Op, string) {
	key := e.NewKey()
	atts, fired := t.LostThenCopies(ctx, e.Cfg.Refund, "refund", in, pay, key, auths)
	name := e.D.Intent(in.Caller, in.Key)
	// As for the capture: the PSP's refunds decide, fault or no fault.
	e.Settle(ctx)
	refunds := scenario.RefundsOf(e, caps)
	captured, refunded := scenario.SumAmounts(caps), scenario.SumAmounts(refunds)
	if len(refunds) == 0 {
		if s := scenario.FirstSucceeded(atts); s != nil {
			f := t.Safety(checker.KindLostEffect, scenario.RuleCapture, "the refund of %s was answered succeeded (#%d) but no refund reached the PSP", pay, s.Seq)
			f.Intent, f.Amount, f.Seqs = name, in.Meaning.Amount, scenario.SeqsOf(atts)
			return nil, "the refund was answered succeeded and never reached the PSP"
		}
	}
	if fired == 0 {
		t.Inconclusive("the refund's PSP reply was never lost", "the target sent no refund of %s to the PSP and answered %s: is the refund request right?",
			strings.Join(auths, ", "), scenario.DescribeResp(atts[0]))
		return nil, "the refund never reached the PSP"
	}
	// No over-refund is looked for: fakepsp, as Stripe, refuses a refund
	// beyond what is left of the charge, and refunds holds only the
	// captures' own, so they never sum past the captured amount.
	if len(refunds) > 1 {
		f := t.Safety(checker.KindDoubleRefund, scenario.RuleCapture, "%d PSP refunds for one refund request of payment %s (PSP keys %s): a repeated refund moved money again",
			len(refunds), pay, strings.Join(scenario.PSPKeys(refunds), ", "))
		f.Intent, f.Amount, f.Charges, f.Seqs = name, in.Meaning.Amount, refunds, scenario.SeqsOf(atts)
	}
	if len(refunds) == 0 {
		t.Inconclusive("no refund reached the PSP and none was answered succeeded", "is the refund request right (refund.path, refund.key)?")
	}
	return refunds, fmt.Sprintf("%d refund(s) of %d for %d captured", len(refunds), refunded, captured)
}
