package scenario

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// RuleOneCredit is what the credit findings cite.
const RuleOneCredit = "SCENARIOS.md W: one credit per payment"

// SettleCredits reads a payment's credits until they stay unchanged for
// the settle period (at least half a second: a handler may credit from a
// queue), bounded by converge_within.
func SettleCredits(ctx context.Context, e *Env, ref PaymentRef) ([]int64, error) {
	return settle(ctx, e, func() ([]int64, error) { return e.Credits.Credits(ctx, ref) }, slices.Equal[[]int64])
}

// settle calls read until its answer stays the same for the settle period
// (at least half a second), bounded by converge_within, and returns the
// last answer: one quiet period, however many rows read gathers.
func settle[T any](ctx context.Context, e *Env, read func() (T, error), same func(a, b T) bool) (T, error) {
	defer e.NoteWait(WaitSettle, time.Now())
	quiet := max(e.Cfg.SettleD(), 500*time.Millisecond)
	deadline := time.Now().Add(e.Cfg.ConvergeD())
	last, err := read()
	if err != nil {
		return last, err
	}
	since := time.Now()
	for time.Since(since) < quiet && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return last, ctx.Err()
		case <-time.After(quiet / 5):
		}
		now, err := read()
		if err != nil {
			return now, err
		}
		if !same(now, last) {
			last, since = now, time.Now()
		}
	}
	return last, nil
}

// JudgeCredits waits for the payment's credits to go quiet, then holds them
// against the PSP's own log: one credit of the charged amount, and each
// PSP refund subtracted once. It returns the rows it read.
func (t *T) JudgeCredits(ctx context.Context, p *HookPayment) []int64 {
	e := t.Env
	if e.Local != nil {
		// A copy the schedule still holds (a duplicate, a late event, a
		// retry) may still change the credits: judge once it is sent.
		WaitLog(ctx, e, e.Cfg.ConvergeD(), func() bool { return e.Local.PendingDeliveries(p.IDs()) == 0 })
	}
	rows, err := SettleCredits(ctx, e, p.Ref)
	if err != nil {
		// The service's endpoint, not idemcheck, failed: as judgeLedger's
		// unreadable ledger, nothing was proven.
		t.Inconclusive("the service's credits could be read (ledger.credits)", "of %s: %v", p.Ref.OrderID, err)
		return nil
	}
	readAt := history.Now()
	charged := *p.Charge.Input.Amount
	var refunded int64
	refunds := RefundsOf(e, p.ChargeOps())
	for _, r := range refunds {
		refunded += *r.Input.Amount
	}
	var pos, neg []int64
	var debited int64
	for _, r := range rows {
		if r > 0 {
			pos = append(pos, r)
		} else if r < 0 {
			neg = append(neg, r)
			debited -= r
		}
	}
	ds := p.Deliveries(e)
	evidence := fmt.Sprintf("credits read %v; PSP: charge %s of %d, %d refund(s) of %d in all; deliveries: %s",
		rows, p.Charge.Output.ChargeID, charged, len(refunds), refunded, deliveryList(p, ds))
	add := func(kind, format string, args ...any) {
		f := t.Safety(kind, RuleOneCredit, "payment %s (%s): %s. %s", PaymentWords(p), p.Ref.PSPPaymentID, fmt.Sprintf(format, args...), evidence)
		f.Intent, f.Amount, f.Charges = p.Name, charged, append([]history.Op{p.Charge}, refunds...)
		f.Deliveries, f.Credits, f.CreditsAt = ds, rows, readAt
	}
	switch {
	case len(pos) == 0:
		add(checker.KindLostEffect, "charged at the PSP and its events acknowledged, but never credited")
	case len(pos) > 1:
		add(checker.KindDoubleCredit, "credited %d times for one charge", len(pos))
	case pos[0] != charged:
		add(checker.KindWrongAmount, "credited %d for a charge of %d", pos[0], charged)
	}
	switch {
	case len(neg) > len(refunds) || debited > refunded:
		add(checker.KindDoubleRefund, "%d refund row(s) debiting %d for %d PSP refund(s) of %d", len(neg), debited, len(refunds), refunded)
	case debited < refunded:
		add(checker.KindLostEffect, "refunded %d at the PSP (%d refund(s)) but only %d was debited", refunded, len(refunds), debited)
	}
	t.Counted("%d credit row(s) %v for %s (charged %d, refunded %d)", len(rows), rows, p.Ref.OrderID, charged, refunded)
	t.recordCredits(p, pos, readAt)
	return rows
}

// recordCredits adds the service's credits of a payment to the check's
// history as HISTORY.md credit ops, read at readAt: the history file of the
// report then holds what the judge counted, and `idemcheck check` of it
// names the same double credit (or, with none, the lost effect).
func (t *T) recordCredits(p *HookPayment, credits []int64, readAt int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, amount := range credits {
		op := history.Op{Process: "service-credits", Op: history.OpCredit, Call: readAt, Return: history.Int64(readAt), Intent: p.Name,
			PaymentID: p.Ref.PaymentID, Input: history.Input{Merchant: "service", Amount: history.Int64(amount), EventID: fmt.Sprintf("%s:row-%d", p.Ref.PSPPaymentID, i+1)}}
		t.History = append(t.History, op)
		t.ops = append(t.ops, op)
	}
}

func PaymentWords(p *HookPayment) string {
	if p.Ref.PaymentID != "" {
		return p.Ref.PaymentID
	}
	return p.Ref.OrderID
}

// deliveryList says, per event, what each copy was and what it got.
func deliveryList(p *HookPayment, ds []core.Delivery) string {
	var out []string
	for _, ev := range p.Events {
		var copies []string
		for _, d := range ds {
			if d.EventID != ev.ID {
				continue
			}
			via := d.Via
			if via == "" {
				via = fmt.Sprintf("schedule #%d", d.Attempt)
			}
			if d.Signature != core.SignValid {
				via += ", " + d.Signature
			}
			copies = append(copies, fmt.Sprintf("%s (%s)", deliveryWords(d), via))
		}
		if len(copies) == 0 {
			copies = []string{"never delivered"}
		}
		out = append(out, fmt.Sprintf("%s %s: %s", ev.Type, ev.ID, strings.Join(copies, ", ")))
	}
	return strings.Join(out, "; ")
}
