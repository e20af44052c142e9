package scenario

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"

	"github.com/idemcheck/idemcheck/conform/pspfront"
	"github.com/idemcheck/idemcheck/internal/testseed"
)

// answeringFront is a front before a stub PSP that answers each request
// with the body the test gives send: exchanges of any key, request and
// answer, logged as a service's would be.
func answeringFront(t *testing.T) (*pspfront.Front, func(x pspfront.Exchange)) {
	t.Helper()
	var mu sync.Mutex
	next := ""
	psp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = w.Write([]byte(next))
	}))
	t.Cleanup(psp.Close)
	f, err := pspfront.Start(psp.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	send := func(x pspfront.Exchange) {
		t.Helper()
		mu.Lock()
		next = x.RespBody
		mu.Unlock()
		sendLogged(t, f, x.Method, x.Path, x.Key, x.Body)
	}
	return f, send
}

// TestAttributionKeptOnlyForExchangesThatCannotChangeIt: an exchange
// logged after the cached attribution keeps it (not remade) when its
// request names no order, or names one but neither made nor names a charge
// left to the amount; one that made such a charge and names an order
// attributes the charge to it, and the cached answer is not served.
func TestAttributionKeptOnlyForExchangesThatCannotChangeIt(t *testing.T) {
	f, send := answeringFront(t)
	fx := &growingEffects{}
	e := &Env{Effects: fx, Front: f}
	ctx := context.Background()
	sent(e, "ord-a", 10)
	sent(e, "ord-b", 20)
	fx.add(charge("k1", 10, map[string]string{"order": "ord-a"}, "ch_1"))
	fx.add(charge("k2", 20, nil, "ch_2")) // ord-b's by its amount only
	first, _ := e.attribute(ctx)
	if first.How[ByAmount] != 1 || len(first.By["ord-b"]) != 1 {
		t.Fatalf("how %v: want ch_2 attributed to ord-b by amount", first.How)
	}
	kept := func(what string, x pspfront.Exchange) {
		t.Helper()
		send(x)
		a, _ := e.attribute(ctx)
		if reflect.ValueOf(a.By).Pointer() != reflect.ValueOf(first.By).Pointer() {
			t.Fatalf("after %s: the attribution was remade", what)
		}
		if !reflect.DeepEqual(a, attributeNaive(fx.ops, f.Exchanges(), e.Orders())) {
			t.Fatalf("after %s: the kept attribution differs from the direct one", what)
		}
	}
	kept("a retrieve", pspfront.Exchange{Method: "GET", Path: "/v1/payment_intents/pi_2", RespBody: `{"latest_charge":"ch_2"}`})
	kept("a request naming ord-a under another key", pspfront.Exchange{Method: "POST", Path: "/v1/payment_intents", Key: "k9", Body: "description=ord-a"})
	kept("a request naming ord-a under the key of ch_1, attributed by metadata",
		pspfront.Exchange{Method: "POST", Path: "/v1/payment_intents", Key: "k1", Body: "description=ord-a", RespBody: "ch_1"})
	if got := e.attr.stats; got.grown != 3 || got.cold != 1 || got.exchanges != 0 {
		t.Fatalf("stats %+v: want 1 made, 3 kept over new exchanges, none remade", got)
	}

	changed := func(what string, x pspfront.Exchange) {
		t.Helper()
		send(x)
		a, _ := e.attribute(ctx)
		if len(a.By["ord-a"]) != 2 || a.How[ByRequest] != 1 || a.How[ByAmount] != 0 {
			t.Fatalf("after %s: By %v how %v: the cached answer was served", what, a.By, a.How)
		}
		if !reflect.DeepEqual(a, attributeNaive(fx.ops, f.Exchanges(), e.Orders())) {
			t.Fatalf("after %s: the answer differs from the direct one", what)
		}
	}
	changed("a request naming ord-a whose answer names ch_2",
		pspfront.Exchange{Method: "POST", Path: "/v1/payment_intents/pi_2/confirm", Key: "k7", Body: "description=ord-a", RespBody: `{"latest_charge":"ch_2"}`})
	e.forgetJudged()
	sent(e, "ord-c", 30)
	fx.add(charge("k3", 30, nil, "ch_3"))
	if a, _ := e.attribute(ctx); len(a.By["ord-c"]) != 1 || a.How[ByAmount] != 1 {
		t.Fatalf("how %v: want ch_3 attributed to ord-c by amount", a.How)
	}
	send(pspfront.Exchange{Method: "POST", Path: "/v1/payment_intents", Key: "k3", Body: "description=ord-b"})
	if a, _ := e.attribute(ctx); len(a.By["ord-b"]) != 1 || len(a.By["ord-c"]) != 0 || a.How[ByRequest] != 2 {
		t.Fatalf("after ord-b's request under ch_3's key: By %v how %v: the cached answer was served", a.By, a.How)
	}
	if got := e.attr.stats; got.exchanges != 1 {
		t.Fatalf("stats %+v: want the request under ch_3's key to remake it", got)
	}
}

// TestAttributionCacheNeverStale: orders, charges and exchanges of drawn
// runs (attrCase's, built to catch an index's mistakes) arrive in a drawn
// interleaving, the orders absorbed to disk now and then, a judge asking
// between: every answer, from the cache or not, is the direct search's
// over what exists when it asks. The draws must reach a cached answer kept
// over new exchanges and one remade for them, or they prove little.
func TestAttributionCacheNeverStale(t *testing.T) {
	seed := testseed.Seed(t)
	t.Logf("seed %d (IDEMCHECK_SEED=%d replays it)", seed, seed)
	r := rand.New(rand.NewPCG(seed, 61))
	var total attrStats
	for i := range 200 {
		charges, ex, orders := attrCase(r)
		f, send := answeringFront(t)
		fx := &growingEffects{}
		var e *Env
		if r.IntN(2) == 0 {
			e = &Env{Effects: fx, Front: f}
		} else {
			e = &Env{Effects: uncounted{fx}, Front: f}
		}
		ctx := context.Background()
		left := len(charges) + len(ex) + len(orders)
		for left > 0 {
			switch k := r.IntN(left); {
			case k < len(orders):
				sent(e, orders[0].ID, orders[0].Amount)
				orders = orders[1:]
			case k < len(orders)+len(charges):
				fx.add(charges[0])
				charges = charges[1:]
			default:
				send(ex[0])
				ex = ex[1:]
			}
			left--
			if r.IntN(8) == 0 {
				total.add(e.attr.stats)
				e.forgetJudged()
				e.absorbOrders()
			}
			if r.IntN(3) == 0 {
				continue
			}
			got, _ := e.attribute(ctx)
			if want := attributeNaive(fx.ops, f.Exchanges(), e.Orders()); !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d case %d: served %+v, direct %+v (stats %+v)", seed, i, got, want, e.attr.stats)
			}
		}
		if err := takeReadError(e); err != nil {
			t.Fatal(err)
		}
		total.add(e.attr.stats)
		_ = e.Close()
	}
	t.Logf("stats %+v", total)
	if total.grown == 0 || total.exchanges == 0 || total.charges == 0 || total.orders == 0 {
		t.Fatalf("stats %+v: the draws missed a kind of change", total)
	}
}

func (s *attrStats) add(o attrStats) {
	s.hits += o.hits
	s.cold += o.cold
	s.charges += o.charges
	s.exchanges += o.exchanges
	s.orders += o.orders
	s.grown += o.grown
}
