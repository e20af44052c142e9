package scenario

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/pspfront"
	"github.com/idemcheck/idemcheck/internal/liveheap"
)

var judgeHeapProfile = flag.String("heapprof", "", "write the heap profile of BenchmarkJudgeSoakHeap, after its last round, to this file")

// Rounds of a soak's chaos as the judge sees them: 240 orders a round (a
// minute's window), each sent twice under its key (a retry), charged once
// with fakepsp's metadata, and three PSP requests through the front (the
// create, its retry, a retrieve).
const (
	soakRounds      = 20
	soakRoundOrders = 240
)

// soakRound sends round r's orders through e as a chaos round does, then
// judges it: the attribution once, ChargesFor once per intent, Judged per
// order, and Absorb, which lets the round go.
func soakRound(b *testing.B, ctx context.Context, parent *T, fx *growingEffects, r int) {
	e := parent.Env
	sub := parent.Round(ctx)
	var ins []Intent
	var work []pspfront.Exchange
	for i := range soakRoundOrders {
		n := r*soakRoundOrders + i
		in := Intent{Meaning: driver.Meaning{OrderID: fmt.Sprintf("ord-123456-%05d", n), Amount: int64(1000 + n)},
			Key: fmt.Sprintf("%08x-1c2d-4e5f-8a9b-%012x", n, n*7919)}
		name := e.D.Intent(in.Caller, in.Key)
		for range 2 {
			// Each copy names its intent afresh, as T.Send does.
			e.track("chaos", in, strings.Clone(name))
		}
		sub.Intents[name] = true
		ins = append(ins, in)
		chID := fmt.Sprintf("ch_3Q%022d", n)
		fx.add(charge("psp-"+in.Key, in.Meaning.Amount, map[string]string{"order_id": in.Meaning.OrderID, "intent": name, "caller": "u1"}, chID))
		body := fmt.Sprintf("amount=%d\ncurrency=usd\nmetadata[order_id]=%s\nconfirm=true\n", in.Meaning.Amount, in.Meaning.OrderID)
		work = append(work,
			pspfront.Exchange{Method: "POST", Path: "/v1/payment_intents", Key: "psp-" + in.Key, Body: body},
			pspfront.Exchange{Method: "POST", Path: "/v1/payment_intents", Key: "psp-" + in.Key, Body: body},
			pspfront.Exchange{Method: "GET", Path: fmt.Sprintf("/v1/payment_intents/pi_3Q%022d", n)})
	}
	sendAll(b, e.Front, work)
	if _, ok := e.attribute(ctx); !ok {
		b.Fatal("no attribution")
	}
	for _, in := range ins {
		cs, ok := e.ChargesFor(ctx, in)
		if !ok || len(cs) != 1 {
			b.Fatalf("round %d order %s: %d charges, want 1", r, in.Meaning.OrderID, len(cs))
		}
		e.Judged(in.Meaning.OrderID, 1, len(cs), -1)
	}
	if parent.Absorb(ctx, fmt.Sprintf("round %d", r+1), sub) {
		b.Fatalf("round %d kept its evidence: it had a finding", r+1)
	}
}

// sendAll sends xs through the front, eight at a time, as a service's
// workers do.
func sendAll(b *testing.B, f *pspfront.Front, xs []pspfront.Exchange) {
	n := f.Len()
	var wg sync.WaitGroup
	work := make(chan pspfront.Exchange)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for x := range work {
				req, _ := http.NewRequest(x.Method, f.URL()+x.Path, strings.NewReader(x.Body))
				req.Header.Set("Idempotency-Key", x.Key)
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}
		}()
	}
	for _, x := range xs {
		work <- x
	}
	close(work)
	wg.Wait()
	if f.Len() != n+len(xs) {
		b.Fatalf("the front holds %d exchanges, want %d", f.Len(), n+len(xs))
	}
}

// copyingEffects hands out copies of the charges' maps and outputs, as
// fakepsp's ground truth does: what the judge keeps of them is its own.
type copyingEffects struct{ *growingEffects }

func (c copyingEffects) Charges(ctx context.Context) ([]history.Op, error) {
	ops, err := c.growingEffects.Charges(ctx)
	for i := range ops {
		ops[i].Input.Metadata = maps.Clone(ops[i].Input.Metadata)
		if o := ops[i].Output; o != nil {
			c := *o
			ops[i].Output = &c
		}
	}
	return ops, err
}

// BenchmarkJudgeSoakHeap: what the judge's state keeps after a soak's
// rounds, per order, part by part (each part's bytes are what the heap
// gives back when that part is let go): the cached attribution, the Env's
// per-order state, the front's log of exchanges. The PSP's own log (the
// stand-in for fakepsp's) is reported apart: it is not the judge's.
// go test -run XXX -bench JudgeSoakHeap -benchtime 1x -heapprof /tmp/judge.pprof ./conform/scenario/
func BenchmarkJudgeSoakHeap(b *testing.B) {
	for b.Loop() {
		judgeSoakHeap(b)
	}
}

func judgeSoakHeap(b *testing.B) {
	psp := chargeNamingPSP()
	defer psp.Close()
	base := liveheap.Bytes()
	f, err := pspfront.Start(psp.URL, "")
	if err != nil {
		b.Fatal(err)
	}
	cfg := &config.Config{Create: config.Request{Path: "/payments"}, Callers: []config.Caller{{Name: "u1"}}}
	fx := &growingEffects{}
	e := &Env{Cfg: cfg, D: driver.New(cfg, nil), Effects: copyingEffects{fx}, Front: f}
	parent := &T{Check: &Check{ID: "chaos"}, Env: e, Intents: map[string]bool{}, finals: map[string]*driver.Attempt{}}
	ctx := context.Background()
	for r := range soakRounds {
		soakRound(b, ctx, parent, fx, r)
	}
	orders := float64(soakRounds * soakRoundOrders)
	all := liveheap.Bytes()
	if *judgeHeapProfile != "" {
		w, err := os.Create(*judgeHeapProfile)
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.WriteHeapProfile(w); err != nil {
			b.Fatal(err)
		}
		w.Close()
	}
	e.attr = attrCache{}
	noAttr := liveheap.Bytes()
	e.mu.Lock()
	e.orders = orderState{}
	e.mu.Unlock()
	noOrders := liveheap.Bytes()
	exchanges := f.Len()
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	e.Front = nil
	f = nil
	noFront := liveheap.Bytes()
	fx.mu.Lock()
	fx.ops = nil
	fx.mu.Unlock()
	noLog := liveheap.Bytes()
	per := func(hi, lo uint64, n float64) float64 { return float64(int64(hi)-int64(lo)) / n }
	b.ReportMetric(per(all, noFront, orders), "judge-B/order")
	b.ReportMetric(per(all, noAttr, orders), "attr-B/order")
	b.ReportMetric(per(noAttr, noOrders, orders), "orders-B/order")
	b.ReportMetric(per(noOrders, noFront, float64(exchanges)), "front-B/exchange")
	b.ReportMetric(per(noFront, noLog, orders), "psplog-B/order")
	b.ReportMetric(per(noLog, base, orders), "rest-B/order")
	runtime.KeepAlive(parent)
}

// chargeNamingPSP answers every request with a PaymentIntent of Stripe's
// size that names a charge of the request's key.
func chargeNamingPSP() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = fmt.Fprintf(w, `{"id":"pi_1","latest_charge":"ch_%s","status":"succeeded",%s}`, r.Header.Get("Idempotency-Key"), strings.Repeat(`"x":1,`, 200)+`"y":1`)
	}))
}
