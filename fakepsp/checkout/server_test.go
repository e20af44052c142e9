package checkout_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/fakepsp/checkout"
	"github.com/idemcheck/idemcheck/fakepsp/core"
)

type reply struct {
	status int
	body   map[string]any
}

func start(t *testing.T) *fakepsp.PSP {
	t.Helper()
	p, err := fakepsp.Start(fakepsp.Config{Dialect: "checkout", RateLimits: fakepsp.RateLimits{Disabled: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func post(t *testing.T, p *fakepsp.PSP, path, key, body string) reply {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, p.URL()+path, strings.NewReader(body))
	req.Header.Set("Authorization", p.SecretKey())
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Cko-Idempotency-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return reply{resp.StatusCode, m}
}

func pay(amount string, capture bool) string {
	c := ""
	if !capture {
		c = `,"capture":false`
	}
	return `{"source":{"type":"card","number":"4242424242424242","expiry_month":6,"expiry_year":2030},"amount":` + amount + `,"currency":"GBP","reference":"ORD-1"` + c + `}`
}

// TestCheckoutPaymentsAndKeys: a payment is 201 Authorized (captured at
// once unless capture is false: one charge), its retry under the key is
// the same answer and no second charge; a request refused for validation
// keeps nothing under its key; a key whose request still runs is 409;
// captures, refunds and voids are 202 or 403 when not allowed.
func TestCheckoutPaymentsAndKeys(t *testing.T) {
	p := start(t)
	first := post(t, p, "/payments", "k-1", pay("1000", true))
	again := post(t, p, "/payments", "k-1", pay("1000", true))
	if first.status != 201 || first.body["status"] != "Authorized" || first.body["approved"] != true || again.body["id"] != first.body["id"] {
		t.Fatalf("payment %v, retry %v", first, again)
	}
	if bad := post(t, p, "/payments", "k-2", `{"amount":5,"currency":"GBP"}`); bad.status != 422 || bad.body["error_type"] != "request_invalid" {
		t.Fatalf("no source: %v", bad)
	}
	if ok := post(t, p, "/payments", "k-2", pay("500", true)); ok.status != 201 {
		t.Fatalf("the key of a refused request, used again: %v (a refused request keeps nothing)", ok)
	}
	gate, err := p.Faults().Add(core.FaultSpec{Kind: core.GateBeforeCharge, Match: core.Match{PSPKey: "k-3"}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan reply)
	go func() { done <- post(t, p, "/payments", "k-3", pay("700", true)) }()
	if err := gate.WaitFired(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if busy := post(t, p, "/payments", "k-3", pay("700", true)); busy.status != 409 || busy.body["error_type"] != "conflict" {
		t.Fatalf("a key in use: %v", busy)
	}
	gate.Release()
	<-done
	auth := post(t, p, "/payments", "k-4", pay("2000", false))
	id, _ := auth.body["id"].(string)
	if c := post(t, p, "/payments/"+id+"/captures", "k-5", `{"amount":1500}`); c.status != 202 || c.body["action_id"] == nil {
		t.Fatalf("capture: %v", c)
	}
	if r := post(t, p, "/payments/"+id+"/refunds", "k-6", `{"amount":1600}`); r.status != 403 || r.body["error_type"] != "refund_not_allowed" {
		t.Fatalf("a refund beyond the capture: %v", r)
	}
	if r := post(t, p, "/payments/"+id+"/refunds", "k-7", `{"amount":500}`); r.status != 202 {
		t.Fatalf("refund: %v", r)
	}
	if v := post(t, p, "/payments/"+id+"/voids", "k-8", ``); v.status != 403 {
		t.Fatalf("a void of a captured payment: %v", v)
	}
	if c, r := p.Charges(), p.Refunds(); len(c) != 4 || len(r) != 1 {
		t.Fatalf("%d charges and %d refunds, want 4 (1000, 500, 700, the capture of 1500) and 1", len(c), len(r))
	}
}

// TestCheckoutWebhooks: a payment captured at once raises payment_approved
// and payment_captured; each delivery carries a Cko-Signature that is the
// HMAC-SHA256 of its raw body under the signature key; retries follow
// Checkout.com's table.
func TestCheckoutWebhooks(t *testing.T) {
	p := start(t)
	got := make(chan string, 4)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		if r.Header.Get("Cko-Signature") != checkout.Sign(raw, p.WebhookSecret()) {
			t.Errorf("a delivery whose Cko-Signature is not its body's HMAC: %s", raw)
		}
		var ev struct{ Type string }
		_ = json.Unmarshal(raw, &ev)
		got <- ev.Type
	}))
	defer recv.Close()
	if _, err := p.RegisterWebhook(recv.URL); err != nil {
		t.Fatal(err)
	}
	post(t, p, "/payments", "k-w", pay("900", true))
	var types []string
	for len(types) < 2 {
		select {
		case typ := <-got:
			types = append(types, typ)
		case <-time.After(10 * time.Second):
			t.Fatalf("deliveries %v, want 2", types)
		}
	}
	if strings.Join(types, " ") != "payment_approved payment_captured" && strings.Join(types, " ") != "payment_captured payment_approved" {
		t.Fatalf("events %v", types)
	}
	s := checkout.Dialect{}.Webhooks().(interface{ Schedule() core.Schedule }).Schedule()
	want := []time.Duration{5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour, 4 * time.Hour, 12 * time.Hour, 12 * time.Hour}
	for i, d := range want {
		if s.Backoff(i+1) != d {
			t.Fatalf("retry %d waits %s, want %s", i+1, s.Backoff(i+1), d)
		}
	}
	if s.Horizon != 30*time.Hour {
		t.Fatalf("horizon %s: eight retries end 30 h after the first attempt", s.Horizon)
	}
}
