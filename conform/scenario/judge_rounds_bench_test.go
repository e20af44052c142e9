package scenario

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/pspfront"
	"github.com/idemcheck/idemcheck/fakepsp/core"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// truthPSP is fakepsp's ground truth as the judge reads it: a log on disk
// (core.GroundTruth on a spill.Store) read back whole at every Charges and
// Refunds, each read counted, and counted by kind without a read.
type truthPSP struct {
	g                    *core.GroundTruth
	chargeReads, refunds atomic.Int64
}

func (p *truthPSP) URL() string { return "" }
func (p *truthPSP) Charges() []history.Op {
	p.chargeReads.Add(1)
	return p.g.Ops(history.OpCharge)
}
func (p *truthPSP) Refunds() []history.Op {
	p.refunds.Add(1)
	return p.g.Ops(history.OpRefund)
}

// RefundCount counts them without a read, as fakepsp's PSP does.
func (p *truthPSP) RefundCount() int { return p.g.Count(history.OpRefund) }

// truthEffects are its charges as conform's pspEffects give them: counted
// without a read (a ChargeLog), read whole otherwise.
type truthEffects struct{ p *truthPSP }

func (t truthEffects) Charges(context.Context) ([]history.Op, error) { return t.p.Charges(), nil }
func (t truthEffects) Count(context.Context) (int64, error) {
	return int64(t.p.g.Count(history.OpCharge)), nil
}
func (t truthEffects) ChargeCount(context.Context) (int, bool) {
	return t.p.g.Count(history.OpCharge), true
}

// ChargesFrom reads only the charges logged from pos on, as conform's
// pspEffects do over fakepsp's PSP (a ChargeTail).
func (t truthEffects) ChargesFrom(_ context.Context, pos int) ([]history.Op, int, bool, error) {
	ops, next, err := t.p.g.OpsFrom(history.OpCharge, pos)
	return ops, next, true, err
}

// BenchmarkJudgeRounds: soakRounds rounds of a soak's chaos judged by the
// real Judge, each over its own 240 orders, every one answered succeeded
// and charged once, one in 12 refunded (its refund read back as chaos's
// judgeRefunds does), while the PSP's ground truth, the front's exchanges
// and the absorbed orders grow on disk. It reports the
// judge's time in round 1 and in the last round, and the last round's
// reads of the PSP's whole log (charges: attributions remade; refunds):
// flat means a round's judge costs what its own orders cost, not the run.
// go test -run XXX -bench JudgeRounds -benchtime 1x ./conform/scenario/
func BenchmarkJudgeRounds(b *testing.B) {
	for b.Loop() {
		judgeRounds(b)
	}
}

func judgeRounds(b *testing.B) {
	stub := chargeNamingPSP()
	defer stub.Close()
	f, err := pspfront.Start(stub.URL, "")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	disk := &spill.Store{Owner: "truth"}
	defer disk.Close()
	p := &truthPSP{g: core.NewGroundTruthOn(disk, nil, nil)}
	cfg := &config.Config{Create: config.Request{Path: "/payments"}, Callers: []config.Caller{{Name: "u1"}}}
	e := &Env{Cfg: cfg, D: driver.New(cfg, nil), Effects: truthEffects{p}, PSP: p, Front: f}
	defer e.Close()
	parent := &T{Check: &Check{ID: "chaos"}, Env: e, Intents: map[string]bool{}, finals: map[string]*driver.Attempt{}}
	ctx := context.Background()
	var first, last time.Duration
	for r := range soakRounds {
		sub := parent.Round(ctx)
		var ins []Intent
		var work []pspfront.Exchange
		for i := range soakRoundOrders {
			n := r*soakRoundOrders + i
			in := Intent{Meaning: driver.Meaning{OrderID: fmt.Sprintf("ord-123456-%05d", n), Amount: int64(1000 + n)},
				Key: fmt.Sprintf("%08x-1c2d-4e5f-8a9b-%012x", n, n*7919)}
			name := e.D.Intent(in.Caller, in.Key)
			e.track("chaos", in, name)
			sub.Intents[name] = true
			sub.finals[name] = &driver.Attempt{Intent: name, Outcome: history.OutcomeSucceeded, PaymentID: fmt.Sprintf("pay_%d", n)}
			ins = append(ins, in)
			chID := fmt.Sprintf("ch_3Q%022d", n)
			c := charge("psp-"+in.Key, in.Meaning.Amount, map[string]string{"order_id": in.Meaning.OrderID, "intent": name, "caller": "u1"}, chID)
			c.Call, c.Return = int64(2*n+1), history.Int64(int64(2*n+2))
			p.g.Add(c)
			if n%12 == 0 {
				p.g.Add(history.Op{Process: "psp", Op: history.OpRefund, Call: int64(2*n + 2), Return: history.Int64(int64(2*n + 3)),
					Input: history.Input{PSPKey: "rf-" + in.Key, ChargeID: chID, Amount: history.Int64(in.Meaning.Amount)}, Output: &history.Output{ChargeID: chID}})
			}
			body := fmt.Sprintf("amount=%d\ncurrency=usd\nmetadata[order_id]=%s\nconfirm=true\n", in.Meaning.Amount, in.Meaning.OrderID)
			work = append(work,
				pspfront.Exchange{Method: "POST", Path: "/v1/payment_intents", Key: "psp-" + in.Key, Body: body},
				pspfront.Exchange{Method: "POST", Path: "/v1/payment_intents", Key: "psp-" + in.Key, Body: body},
				pspfront.Exchange{Method: "GET", Path: fmt.Sprintf("/v1/payment_intents/pi_3Q%022d", n)})
		}
		sendAll(b, f, work)
		charges, refunds := p.chargeReads.Load(), p.refunds.Load()
		var m0 runtime.MemStats
		runtime.ReadMemStats(&m0)
		stopPeak := peakHeap()
		start := time.Now()
		sub.Judge(ctx, nil, ins...)
		// The refunded orders' shapes, as chaos's judgeRefunds holds them.
		for i, in := range ins {
			if (r*soakRoundOrders+i)%12 != 0 {
				continue
			}
			cs, _ := e.ChargesFor(ctx, in)
			if got := RefundsOf(e, cs); len(got) != 1 {
				b.Fatalf("order %s: %d refunds, want 1", in.Meaning.OrderID, len(got))
			}
		}
		took := time.Since(start)
		peak := stopPeak()
		switch r {
		case 0:
			first = took
			b.ReportMetric(float64(peak)/(1<<20), "round1-peak-heap-MiB")
		case soakRounds - 1:
			last = took
			b.ReportMetric(float64(p.chargeReads.Load()-charges), "last-round-charge-reads")
			b.ReportMetric(float64(p.refunds.Load()-refunds), "last-round-refund-reads")
			// Remakes that read the whole run because the round's view
			// could not stand for it: none, for this run.
			b.ReportMetric(float64(e.attr.stats.whole), "last-round-whole-reads")
			// Bytes allocated judging the last round: what it reads back
			// of the whole run at once sets the run's memory peak.
			var m1 runtime.MemStats
			runtime.ReadMemStats(&m1)
			b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/(1<<20), "last-round-alloc-MiB")
			b.ReportMetric(float64(peak)/(1<<20), "last-round-peak-heap-MiB")
		}
		for _, fd := range sub.Findings {
			b.Fatalf("round %d: %s %s", r+1, fd.Kind, fd.Message)
		}
		parent.Absorb(ctx, fmt.Sprintf("round %d", r+1), sub)
	}
	if err := takeReadError(e); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(first.Microseconds())/1000, "round1-ms")
	b.ReportMetric(float64(last.Microseconds())/1000, fmt.Sprintf("round%d-ms", soakRounds))
	b.ReportMetric(float64(last)/float64(first), "last/first")
}

// peakHeap polls the heap's allocated bytes (live and not yet collected)
// until stopped and returns the largest: what a judge holds at once shows
// there, its garbage only as far as the collector's pacing lets it grow.
func peakHeap() (stop func() uint64) {
	done, out := make(chan struct{}), make(chan uint64)
	go func() {
		var peak uint64
		var m runtime.MemStats
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			select {
			case <-done:
				out <- peak
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(done); return <-out }
}
