package pspfront

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/idemcheck/idemcheck/internal/liveheap"
)

// BenchmarkHeapPerExchange: what the front's log keeps in memory per
// exchange of a soak's mix (a create, its retry under the same key, a
// retrieve by the payment's own path), after the exchanges are done.
// go test -run XXX -bench HeapPerExchange -benchtime 1x ./conform/pspfront/
func BenchmarkHeapPerExchange(b *testing.B) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = fmt.Fprintf(w, `{"id":"pi_1","status":"succeeded",%s}`, strings.Repeat(`"x":1,`, 200)+`"y":1`)
	}))
	defer up.Close()
	for b.Loop() {
		const orders = 3000
		before := liveheap.Bytes()
		f, err := Start(up.URL, "")
		if err != nil {
			b.Fatal(err)
		}
		work := make(chan [3]string)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
				for x := range work {
					req, _ := http.NewRequest(x[0], f.URL()+x[1], strings.NewReader(x[2]))
					if x[0] == "POST" {
						req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
						req.Header.Set("Idempotency-Key", fmt.Sprintf("%08x-1c2d-4e5f-8a9b-0123456789ab", len(x[2])))
					}
					if resp, err := c.Do(req); err == nil {
						resp.Body.Close()
					}
				}
			}()
		}
		for i := range orders {
			body := fmt.Sprintf("amount=%d&currency=usd&metadata[order_id]=ord-123456-%05d&confirm=true", 1000+i, i)
			work <- [3]string{"POST", "/v1/payment_intents", body}
			work <- [3]string{"POST", "/v1/payment_intents", body}
			work <- [3]string{"GET", fmt.Sprintf("/v1/payment_intents/pi_3Q%022d", i), ""}
		}
		close(work)
		wg.Wait()
		n := f.Len()
		if n != 3*orders {
			b.Fatalf("the front logged %d exchanges, want %d", n, 3*orders)
		}
		after := liveheap.Bytes()
		b.ReportMetric(float64(int64(after)-int64(before))/float64(n), "B/exchange")
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExchanges15k: the time of one Exchanges() over 15,000 logged
// exchanges of the soak's mix, which attribution reads at every round.
// go test -run XXX -bench Exchanges15k ./conform/pspfront/
func BenchmarkExchanges15k(b *testing.B) {
	f, err := Start("http://127.0.0.1:1", "")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	resp := fmt.Sprintf(`{"id":"pi_1","status":"succeeded",%s}`, strings.Repeat(`"x":1,`, 200)+`"y":1`)
	const n = 15000
	for i := range n / 3 {
		body := fmt.Sprintf("amount=%d\ncurrency=usd\nmetadata[order_id]=ord-123456-%05d\nconfirm=true\n", 1000+i, i)
		key := fmt.Sprintf("%08x-1c2d-4e5f-8a9b-0123456789ab", i)
		f.keep(Exchange{Method: "POST", Path: "/v1/payment_intents", Key: key, Body: body, Status: 200, RespBody: resp})
		f.keep(Exchange{Method: "POST", Path: "/v1/payment_intents", Key: key, Body: body, Status: 200, RespBody: resp})
		f.keep(Exchange{Method: "GET", Path: fmt.Sprintf("/v1/payment_intents/pi_3Q%022d", i), Status: 200, RespBody: resp})
	}
	for b.Loop() {
		if xs := f.Exchanges(); len(xs) != n {
			b.Fatalf("%d exchanges, want %d", len(xs), n)
		}
	}
	if err := f.ReadError(); err != nil {
		b.Fatal(err)
	}
}
