package scenario

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/pspfront"
)

// soakRun is an hour of a soak's traffic as the judge sees it: 3000 orders,
// 3000 charges (most name their order in metadata, some only in the request
// under their key, a few only by amount), 12000 front exchanges of Stripe's
// sizes (bodies ~600 bytes, answers ~1500).
func soakRun() ([]history.Op, []pspfront.Exchange, []Order) {
	const n = 3000
	pad := func(s string, size int) string { return s + strings.Repeat("x", max(0, size-len(s))) }
	var orders []Order
	var charges []history.Op
	var ex []pspfront.Exchange
	for i := range n {
		id := fmt.Sprintf("ord-123456-%05d", i)
		orders = append(orders, Order{ID: id, Amount: int64(1000 + i)})
		key := fmt.Sprintf("psp-key-%08d", i)
		chID := fmt.Sprintf("ch_3Q%022d", i)
		c := charge(key, int64(1000+i), nil, chID)
		switch {
		case i%20 == 0: // amount only: no id anywhere, a key no request used
			c.Input.PSPKey = "unseen-" + key
		case i%7 == 0: // the request under its key named the order
		default:
			c.Input.Metadata = map[string]string{"order_id": id, "intent": fmt.Sprintf("u1/%d", i)}
		}
		charges = append(charges, c)
		body := pad(fmt.Sprintf("amount=%d\ncurrency=usd\ndescription=order %s\nconfirm=true\n", 1000+i, id), 600)
		if i%20 == 0 {
			body = pad(fmt.Sprintf("amount=%d\ncurrency=usd\nconfirm=true\n", 1000+i), 600)
		}
		resp := pad(fmt.Sprintf(`{"id":"pi_3Q%022d","latest_charge":"%s","status":"succeeded",`, i, chID), 1500)
		ex = append(ex,
			pspfront.Exchange{Method: "POST", Path: "/v1/payment_intents", Key: key, Body: body, Status: 200, RespBody: resp},
			pspfront.Exchange{Method: "POST", Path: "/v1/payment_intents", Key: key, Body: body, Status: 200, RespBody: resp},
			pspfront.Exchange{Method: "GET", Path: fmt.Sprintf("/v1/payment_intents/pi_3Q%022d", i), Status: 200, RespBody: resp},
			pspfront.Exchange{Method: "GET", Path: "/v1/payment_intents/search", Status: 200, RespBody: pad(`{"data":[]}`, 1500)})
	}
	return charges, ex, orders
}

// BenchmarkAttribute: one attribution of a soak hour's run, the direct
// search against the index (go test -bench Attribute -benchtime 1x).
func BenchmarkAttribute(b *testing.B) {
	charges, ex, orders := soakRun()
	for _, v := range []struct {
		name string
		fn   func([]history.Op, []pspfront.Exchange, []Order) Attribution
	}{{"naive", attributeNaive}, {"indexed", Attribute}} {
		b.Run(v.name, func(b *testing.B) {
			for b.Loop() {
				a := v.fn(charges, ex, orders)
				if len(a.Unattributed) != 0 || a.How[ByAmount] == 0 || a.How[ByRequest] == 0 || a.How[ByMetadata] == 0 {
					b.Fatalf("how %v, unattributed %d: the run is not the one described", a.How, len(a.Unattributed))
				}
			}
		})
	}
}

// BenchmarkJudgeRound: a judge asking ChargesFor once per order of the
// run, on an Env nothing changes meanwhile, through a real front holding
// the run's exchanges.
func BenchmarkJudgeRound(b *testing.B) {
	charges, ex, orders := soakRun()
	answers := map[string]string{}
	for _, x := range ex {
		answers[x.Key] = x.RespBody
	}
	psp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(answers[r.Header.Get("Idempotency-Key")]))
	}))
	defer psp.Close()
	f, err := pspfront.Start(psp.URL, "")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sendAll(b, f, ex)
	fx := &growingEffects{ops: charges}
	e := &Env{Effects: fx, Front: f}
	for _, o := range orders {
		sent(e, o.ID, o.Amount)
	}
	ctx := context.Background()
	for b.Loop() {
		for _, o := range orders {
			if cs, ok := e.ChargesFor(ctx, Intent{Meaning: driver.Meaning{OrderID: o.ID}}); !ok || len(cs) != 1 {
				b.Fatalf("order %s: %d charges, want 1", o.ID, len(cs))
			}
		}
	}
}
