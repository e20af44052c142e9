package scenario

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
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
	if refundedAmounts(e)["ch_1"] != 1 || p.reads != 2 {
		t.Fatalf("refundedAmounts: %d reads, want ch_1 refunded from the kept read", p.reads)
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

// growingRefunds is a RefundLog safe for concurrent use, refunds added
// while judges ask.
type growingRefunds struct {
	mu      sync.Mutex
	refunds []history.Op
}

func (p *growingRefunds) URL() string           { return "" }
func (p *growingRefunds) Charges() []history.Op { return nil }
func (p *growingRefunds) RefundCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.refunds)
}
func (p *growingRefunds) Refunds() []history.Op {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.refunds)
}
func (p *growingRefunds) add(op history.Op) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refunds = append(p.refunds, op)
}

// TestRefundsConcurrentJudges: judges asking while refunds are made and
// rounds let go each get the PSP's refunds in order, every refund made
// before their ask began among them: the kept read is never older than
// the ask.
func TestRefundsConcurrentJudges(t *testing.T) {
	p := &growingRefunds{}
	e := &Env{PSP: p}
	const made = 400
	var wg sync.WaitGroup
	var done atomic.Bool
	errs := make(chan string, 8)
	asked := make(chan struct{}, 4)
	for j := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; !done.Load(); n++ {
				if n == 1 {
					asked <- struct{}{}
				}
				before := p.RefundCount()
				got := e.refunds()
				if len(got) < before {
					errs <- fmt.Sprintf("judge %d: %d refunds, %d were made before it asked", j, len(got), before)
					return
				}
				for i, r := range got {
					if r.Input.ChargeID != fmt.Sprintf("ch_%d", i) {
						errs <- fmt.Sprintf("judge %d: refund %d is of %s", j, i, r.Input.ChargeID)
						return
					}
				}
			}
		}()
	}
	for range 4 {
		<-asked // every judge asking before the first refund
	}
	for i := range made {
		runtime.Gosched()
		p.add(history.Op{Op: history.OpRefund, Input: history.Input{ChargeID: fmt.Sprintf("ch_%d", i), Amount: history.Int64(1)}})
		if i%50 == 0 {
			e.forgetJudged()
		}
	}
	done.Store(true)
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
	if got := e.refunds(); len(got) != made {
		t.Fatalf("after all were made: %d refunds, want %d", len(got), made)
	}
}
