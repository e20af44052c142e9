package scenario

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
)

// qPayment is one payment the records of a check carry, with every copy
// of it produced.
type qPayment struct {
	ref    PaymentRef
	amount int64
	copies []*QRecord
}

func paymentsOf(recs []*QRecord) []*qPayment {
	var out []*qPayment
	by := map[string]*qPayment{}
	for _, r := range recs {
		if r.poison {
			continue
		}
		p := by[r.Ref.PaymentID]
		if p == nil {
			p = &qPayment{ref: r.Ref, amount: r.amount}
			by[r.Ref.PaymentID] = p
			out = append(out, p)
		}
		p.copies = append(p.copies, r)
	}
	return out
}

// settleAll reads every payment's credits until none of them changed for
// the settle period: one quiet period for the whole check, not one per
// payment.
func settleAll(ctx context.Context, e *Env, ps []*qPayment) (map[string][]int64, error) {
	read := func() (map[string][]int64, error) {
		out := map[string][]int64{}
		for _, p := range ps {
			rows, err := e.Queue.credits(ctx, e, p.ref)
			if err != nil {
				return nil, err
			}
			out[p.ref.PaymentID] = rows
		}
		return out, nil
	}
	return settle(ctx, e, read, func(a, b map[string][]int64) bool { return maps.EqualFunc(a, b, slices.Equal[[]int64]) })
}

// JudgeQueue holds each payment's credits, once quiet, against what was
// produced: exactly one positive credit of the record's amount, however
// many copies of it the broker delivered. stuck, when set, says why a
// record never credited is lost (a partition stopped behind a poison).
// It returns the rows read by payment id.
func (t *T) JudgeQueue(ctx context.Context, recs []*QRecord, stuck func(*QRecord) string) map[string][]int64 {
	e := t.Env
	ps := paymentsOf(recs)
	rows, err := settleAll(ctx, e, ps)
	if err != nil {
		t.Inconclusive("the service's credits could be read (ledger.credits)", "%v", err)
		return nil
	}
	readAt := history.Now()
	credited := 0
	for _, p := range ps {
		var pos []int64
		for _, r := range rows[p.ref.PaymentID] {
			if r > 0 {
				pos = append(pos, r)
			}
		}
		t.recordQueueCredits(p, pos, readAt)
		evidence := fmt.Sprintf("credits read %v; record(s) %s", rows[p.ref.PaymentID], recordList(p.copies))
		add := func(kind, format string, args ...any) {
			f := t.Safety(kind, RuleQueue, "payment %s (event %s, order %s): %s. %s", p.ref.PaymentID, p.copies[0].event, p.ref.OrderID, fmt.Sprintf(format, args...), evidence)
			f.Amount = p.amount
		}
		switch {
		case len(pos) == 0:
			w := e.Queue.Words()
			why := fmt.Sprintf("its record is in %s and %s %s it, but it was never credited", w.Store, w.Who, w.Past)
			if stuck != nil {
				if s := stuck(p.copies[0]); s != "" {
					why = s
				}
			}
			add(checker.KindLostEffect, "%s", why)
		case len(pos) > 1:
			add(checker.KindDoubleCredit, "credited %d times for one payment (%d record(s) of it produced)", len(pos), len(p.copies))
		case pos[0] != p.amount:
			add(checker.KindWrongAmount, "credited %d for a record of %d", pos[0], p.amount)
		default:
			credited++
		}
	}
	t.Counted("%d of %d payment(s) credited exactly once (%d record(s) produced)", credited, len(ps), len(recs))
	return rows
}

func recordList(recs []*QRecord) string {
	var out []string
	for _, r := range recs {
		s := r.Place().Long
		if r.dupNote != "" {
			s += " (" + r.dupNote + ")"
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

// anyCredited reports whether some payment of recs has a credit row now.
func anyCredited(ctx context.Context, e *Env, recs []*QRecord) bool {
	return slices.ContainsFunc(paymentsOf(recs), func(p *qPayment) bool {
		rows, err := e.Queue.credits(ctx, e, p.ref)
		return err == nil && len(rows) > 0
	})
}

// recordQueueCredits adds a payment's credits, as read at readAt, to the
// check's history as HISTORY.md credit ops of its payment id: the history
// file then holds what the judge counted, and `idemcheck check` of it
// names the same double credit.
func (t *T) recordQueueCredits(p *qPayment, credits []int64, readAt int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, amount := range credits {
		op := history.Op{Process: "service-credits", Op: history.OpCredit, Call: readAt, Return: history.Int64(readAt),
			PaymentID: p.ref.PaymentID, Input: history.Input{Merchant: "service", Amount: history.Int64(amount), EventID: fmt.Sprintf("%s:row-%d", p.copies[0].event, i+1)}}
		t.History = append(t.History, op)
		t.ops = append(t.ops, op)
	}
}
