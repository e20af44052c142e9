package fakepsp

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"
)

// BenchmarkSearchOverDisk is one search over 5,000 PaymentIntents, all but
// the few the PSP keeps in memory read back from disk (issue 54): it scans
// every intent's versions, as Stripe's search matches every object.
func BenchmarkSearchOverDisk(b *testing.B) {
	const intents = 5000
	p := start(b, Config{})
	c := &http.Client{Timeout: 5 * time.Second} // keep-alive: the creates carry no Idempotency-Key
	for i := range intents {
		v := payment("1000", "pm_card_visa", "pay_"+strconv.Itoa(i))
		a, err := do(b, c, http.MethodPost, p.URL()+"/v1/payment_intents", p.SecretKey(), "", "application/x-www-form-urlencoded", v.Encode())
		if err != nil || a.status != 200 {
			b.Fatalf("create %d: %v %d %s", i, err, a.status, a.raw)
		}
	}
	q := p.URL() + "/v1/payment_intents/search?" + url.Values{"query": {"metadata['payment_id']:'pay_17'"}}.Encode()
	b.ResetTimer()
	for b.Loop() {
		a, err := do(b, c, http.MethodGet, q, p.SecretKey(), "", "", "")
		if err != nil || a.status != 200 {
			b.Fatalf("search: %v %d %s", err, a.status, a.raw)
		}
		if data, _ := a.body["data"].([]any); len(data) != 1 {
			b.Fatalf("search found %d intents, want 1", len(data))
		}
	}
}
