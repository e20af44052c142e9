package scenario

import (
	"slices"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
)

// countingPSP is a PSP whose refunds are given, each read of them counted.
type countingPSP struct {
	refunds []history.Op
	reads   int
}

func (p *countingPSP) URL() string           { return "" }
func (p *countingPSP) Charges() []history.Op { return nil }
func (p *countingPSP) Refunds() []history.Op { p.reads++; return p.refunds }

// TestJudgeReadsRefundsOnlyForAnUnansweredCharge: the PSP's refunds (a read
// of its whole log) are read only when an order has more charges than
// intents told succeeded, and then decide as before: a refunded charge is
// owed no answer, a live one is failed-but-charged.
func TestJudgeReadsRefundsOnlyForAnUnansweredCharge(t *testing.T) {
	for _, c := range []struct {
		name      string
		final     string
		refunded  bool
		reads     int
		violation bool
	}{
		{"told succeeded", history.OutcomeSucceeded, false, 0, false},
		{"told failed, refunded", history.OutcomeFailed, true, 1, false},
		{"told failed, not refunded", history.OutcomeFailed, false, 1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			psp := &countingPSP{}
			ch := charge("k1", 10, map[string]string{"order_id": "ord-a"}, "ch_1")
			if c.refunded {
				psp.refunds = []history.Op{{Op: history.OpRefund, Input: history.Input{ChargeID: "ch_1", Amount: history.Int64(10)}}}
			}
			e := &Env{Cfg: &config.Config{}, PSP: psp}
			tt := &T{Check: &Check{ID: "X"}, Env: e, finals: map[string]*driver.Attempt{"u1:k": {Intent: "u1:k", Outcome: c.final}}}
			g := &group{order: "ord-a", amount: 10, expect: 1, intents: []Intent{{Key: "k"}}}
			tt.judgeCharges(g, []history.Op{ch}, []string{"u1:k"}, nil)
			found := tt.hasFinding(checker.KindFailedButCharged, "u1:k")
			if psp.reads != c.reads || found != c.violation {
				t.Fatalf("%d reads of the refunds, failed-but-charged %v; want %d, %v", psp.reads, found, c.reads, c.violation)
			}
		})
	}
}

// TestJudgeRefundsDecideOnlyTheUnansweredCharge: the kinds found before the
// refunds are read (a double charge, a wrong amount) are found whether or
// not a charge was refunded and whether or not the refunds were read, and
// only refunds of the charge itself, of its whole amount, answer for it
// (the checker's failed-but-charged rule, converge.go): a buyer refunded in
// part still paid.
func TestJudgeRefundsDecideOnlyTheUnansweredCharge(t *testing.T) {
	ord := map[string]string{"order_id": "ord-a"}
	refundOf := func(ch string, amount int64) history.Op {
		return history.Op{Op: history.OpRefund, Input: history.Input{ChargeID: ch, Amount: history.Int64(amount)}}
	}
	refund := func(ch string) history.Op { return refundOf(ch, 10) }
	for _, c := range []struct {
		name    string
		charges []history.Op
		refunds []history.Op
		final   string
		reads   int
		kinds   []string
	}{
		{"a double charge, one refunded, told succeeded",
			[]history.Op{charge("k1", 10, ord, "ch_1"), charge("k2", 10, ord, "ch_2")}, []history.Op{refund("ch_2")},
			history.OutcomeSucceeded, 1, []string{checker.KindDoubleCharge}},
		{"a double charge, none refunded, told succeeded",
			[]history.Op{charge("k1", 10, ord, "ch_1"), charge("k2", 10, ord, "ch_2")}, nil,
			history.OutcomeSucceeded, 1, []string{checker.KindDoubleCharge}},
		{"a wrong amount told succeeded",
			[]history.Op{charge("k1", 12, ord, "ch_1")}, []history.Op{refund("ch_1")},
			history.OutcomeSucceeded, 0, []string{checker.KindWrongAmount}},
		{"a wrong amount told failed, refunded",
			[]history.Op{charge("k1", 12, ord, "ch_1")}, []history.Op{refundOf("ch_1", 12)},
			history.OutcomeFailed, 1, []string{checker.KindWrongAmount}},
		{"told failed, refunded in part",
			[]history.Op{charge("k1", 10, ord, "ch_1")}, []history.Op{refundOf("ch_1", 4)},
			history.OutcomeFailed, 1, []string{checker.KindFailedButCharged}},
		{"told failed, refunded whole in two parts",
			[]history.Op{charge("k1", 10, ord, "ch_1")}, []history.Op{refundOf("ch_1", 4), refundOf("ch_1", 6)},
			history.OutcomeFailed, 1, nil},
		{"told failed, another charge refunded",
			[]history.Op{charge("k1", 10, ord, "ch_1")}, []history.Op{refund("ch_9")},
			history.OutcomeFailed, 1, []string{checker.KindFailedButCharged}},
	} {
		t.Run(c.name, func(t *testing.T) {
			psp := &countingPSP{refunds: c.refunds}
			e := &Env{Cfg: &config.Config{}, PSP: psp}
			tt := &T{Check: &Check{ID: "X"}, Env: e, finals: map[string]*driver.Attempt{"u1:k": {Intent: "u1:k", Outcome: c.final}}}
			g := &group{order: "ord-a", amount: 10, expect: 1, intents: []Intent{{Key: "k"}}}
			tt.judgeCharges(g, c.charges, []string{"u1:k"}, nil)
			var kinds []string
			for _, f := range tt.Findings {
				kinds = append(kinds, f.Kind)
			}
			if psp.reads != c.reads || !slices.Equal(kinds, c.kinds) {
				t.Fatalf("%d reads of the refunds, findings %v; want %d, %v", psp.reads, kinds, c.reads, c.kinds)
			}
		})
	}
}
