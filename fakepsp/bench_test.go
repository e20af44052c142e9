package fakepsp

import (
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchPost sends one form POST on a keep-alive client (no faults here, so
// net/http's own replays cannot happen).
func benchPost(b *testing.B, c *http.Client, p *PSP, key, body string) int {
	req, _ := http.NewRequest(http.MethodPost, p.URL()+"/v1/payment_intents", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+p.SecretKey())
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Idempotency-Key", key)
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// BenchmarkCreate: PaymentIntent creates with confirm=true (a charge each) on loopback.
func BenchmarkCreate(b *testing.B) {
	p := start(b, Config{})
	c := &http.Client{}
	defer c.CloseIdleConnections()
	body := payment("1000", "pm_card_visa", "pay_b").Encode()
	b.ResetTimer()
	startAt := time.Now()
	for i := 0; b.Loop(); i++ {
		if code := benchPost(b, c, p, "bench-"+strconv.Itoa(i), body); code != 200 {
			b.Fatalf("status %d", code)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(startAt).Seconds(), "creates/s")
}

// BenchmarkReplay: repeats of one saved key; reports p50 and p99 latency.
func BenchmarkReplay(b *testing.B) {
	p := start(b, Config{})
	c := &http.Client{}
	defer c.CloseIdleConnections()
	body := url.Values{"amount": {"1000"}, "currency": {"usd"}, "confirm": {"true"}, "payment_method": {"pm_card_visa"}}.Encode()
	if code := benchPost(b, c, p, "replayed", body); code != 200 {
		b.Fatalf("status %d", code)
	}
	lat := make([]time.Duration, 0, 1024)
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		if code := benchPost(b, c, p, "replayed", body); code != 200 {
			b.Fatalf("status %d", code)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	pct := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50_ms")
	b.ReportMetric(pct(0.99), "p99_ms")
	if len(p.Charges()) != 1 {
		b.Fatalf("replays charged: %d charges", len(p.Charges()))
	}
}
