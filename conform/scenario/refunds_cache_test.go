package scenario

import (
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
)

// countedRefunds is a PSP that counts its refunds (a RefundLog); lost
// makes its reads come back one short, as a lost chunk would.
type countedRefunds struct {
	countingPSP
	lost bool
}

func (p *countedRefunds) RefundCount() int { return len(p.refunds) }
func (p *countedRefunds) Refunds() []history.Op {
	ops := p.countingPSP.Refunds()
	if p.lost && len(ops) > 0 {
		return ops[1:]
	}
	return ops
}

// TestRefundsReadAgainOnlyWhenTheirCountMoves: asks with the count
// unchanged read nothing; a new refund, a read that came back short and a
// judged round each make the next ask read the PSP again, and every answer
// is the PSP's refunds as they are.
func TestRefundsReadAgainOnlyWhenTheirCountMoves(t *testing.T) {
	p := &countedRefunds{}
	e := &Env{PSP: p}
	refund := func(ch string) history.Op {
		return history.Op{Op: history.OpRefund, Input: history.Input{ChargeID: ch, Amount: history.Int64(1)}}
	}
	ask := func(what string, want, reads int) {
		t.Helper()
		got := RefundsOf(e, []history.Op{charge("k1", 1, nil, "ch_1"), charge("k2", 1, nil, "ch_2")})
		if len(got) != want || p.reads != reads {
			t.Fatalf("%s: %d refunds after %d reads of the PSP, want %d after %d", what, len(got), p.reads, want, reads)
		}
	}
	ask("none made", 0, 1)
	ask("again", 0, 1)
	p.refunds = append(p.refunds, refund("ch_1"))
	ask("one made", 1, 2)
	ask("again", 1, 2)
	if !refundedIDs(e)["ch_1"] || p.reads != 2 {
		t.Fatalf("refundedIDs: %d reads, want ch_1 refunded from the kept read", p.reads)
	}
	e.forgetJudged()
	ask("after the round", 1, 3)
	p.refunds = append(p.refunds, refund("ch_2"))
	p.lost = true
	ask("a short read", 1, 4)
	p.lost = false
	ask("the read whole again", 2, 5)
	ask("again", 2, 5)
}
