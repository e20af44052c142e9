package fakepsp

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// A lost reply: the PSP charges and saves, the client sees EOF; its retry
// with the same key gets the saved charge, and the history shows one charge.
func TestLoseReplyAfterCharge(t *testing.T) {
	p := start(t, Config{})
	f := p.Faults().Arm(FaultSpec{Kind: LoseReply, Match: Match{PSPKey: "pay_7:charge", Times: 1}})
	c := client(5 * time.Second) // DisableKeepAlives: net/http cannot resend it by itself
	body := payment("3000", "pm_card_visa", "pay_7").Encode()
	_, err := do(t, c, http.MethodPost, p.URL()+"/v1/payment_intents", p.SecretKey(), "pay_7:charge", "application/x-www-form-urlencoded", body)
	if err == nil || !(errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "EOF")) {
		t.Fatalf("client error %v, want EOF", err)
	}
	if f.Fired() != 1 {
		t.Fatalf("fault fired %d times", f.Fired())
	}
	wantCharges(t, p, 1)
	retry := form(t, p, "/v1/payment_intents", "pay_7:charge", payment("3000", "pm_card_visa", "pay_7"))
	if retry.status != 200 || !retry.replayed || retry.str("latest_charge") != p.Charges()[0].Output.ChargeID {
		t.Fatalf("retry: %d replayed=%v %s", retry.status, retry.replayed, retry.raw)
	}
	wantCharges(t, p, 1)
}

func TestHoldReplyAfterCharge(t *testing.T) {
	p := start(t, Config{})
	f := p.Faults().Arm(FaultSpec{Kind: HoldReply, Match: Match{Amount: 4200}})
	c := client(300 * time.Millisecond)
	_, err := do(t, c, http.MethodPost, p.URL()+"/v1/payment_intents", p.SecretKey(), "held", "application/x-www-form-urlencoded", payment("4200", "pm_card_visa", "pay_h").Encode())
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("client error %v, want a timeout", err)
	}
	if f.Fired() != 1 {
		t.Fatalf("fault fired %d times", f.Fired())
	}
	wantCharges(t, p, 1)
	// Another amount is not held.
	wantStatus(t, "other amount", form(t, p, "/v1/payment_intents", "free", payment("100", "pm_card_visa", "pay_x")), 200)
	// Released, a held answer is delivered late.
	go func() {
		_ = f.WaitFired(context.Background(), 2)
		f.Release()
	}()
	late := form(t, p, "/v1/payment_intents", "held-2", payment("4200", "pm_card_visa", "pay_h2"))
	wantStatus(t, "released", late, 200)
	wantCharges(t, p, 3)
}

func TestDelayFaults(t *testing.T) {
	p := start(t, Config{})
	before := p.Faults().Arm(FaultSpec{Kind: DelayBeforeCharge, Match: Match{Op: "charge", Times: 1}, Delay: 150 * time.Millisecond})
	after := p.Faults().Arm(FaultSpec{Kind: DelayAfterCharge, Match: Match{Op: "charge", Times: 1}, Delay: 150 * time.Millisecond})
	c := client(100 * time.Millisecond)
	_, err := do(t, c, http.MethodPost, p.URL()+"/v1/payment_intents", p.SecretKey(), "slow", "application/x-www-form-urlencoded", payment("100", "pm_card_visa", "pay_s").Encode())
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("client error %v, want a timeout", err)
	}
	// The server keeps executing after the client left; the charge lands.
	waitFor(t, "the delayed charge", 5*time.Second, func() bool { return len(p.Charges()) == 1 })
	waitFor(t, "the after-delay", 5*time.Second, func() bool { return after.Fired() == 1 })
	if before.Fired() != 1 {
		t.Fatalf("before fired %d", before.Fired())
	}
	// Times: 1 means the next request runs at full speed.
	wantStatus(t, "undelayed", form(t, p, "/v1/payment_intents", "fast", payment("100", "pm_card_visa", "pay_f")), 200)
	if before.Fired() != 1 || after.Fired() != 1 {
		t.Fatalf("fired again: before %d after %d", before.Fired(), after.Fired())
	}
}

func TestRateLimitBeforeIdempotency(t *testing.T) {
	p := start(t, Config{})
	f := p.Faults().Arm(FaultSpec{Kind: RateLimit, Match: Match{PSPKey: "rl", Times: 1}})
	a := form(t, p, "/v1/payment_intents", "rl", payment("100", "pm_card_visa", "pay_rl"))
	wantStatus(t, "limited", a, http.StatusTooManyRequests)
	if a.errCode() != "rate_limit" || f.Fired() != 1 {
		t.Fatalf("429: %s fired=%d", a.raw, f.Fired())
	}
	wantCharges(t, p, 0)
	b := form(t, p, "/v1/payment_intents", "rl", payment("100", "pm_card_visa", "pay_rl"))
	if b.status != 200 || b.replayed {
		t.Fatalf("after the 429 nothing was saved, want a fresh 200: %d replayed=%v", b.status, b.replayed)
	}
	wantCharges(t, p, 1)
}

func TestRateLimiterBuckets(t *testing.T) {
	p := start(t, Config{RateLimits: RateLimits{PerAccount: 1000, PerEndpoint: 3}})
	var codes []int
	for i := 0; i < 4; i++ {
		codes = append(codes, get(t, p, "/v1/events").status)
	}
	if codes[0] != 200 || codes[2] != 200 || codes[3] != 429 {
		t.Fatalf("per-endpoint limit 3/s: %v", codes)
	}
	// Another endpoint has its own bucket.
	wantStatus(t, "other endpoint", get(t, p, "/v1/payment_intents"), 200)
	// The per-account bucket and Disabled: core's TestRateLimiterBuckets.
}

func TestPauseAndResume(t *testing.T) {
	p := start(t, Config{})
	p.Faults().Pause()
	_, err := do(t, client(200*time.Millisecond), http.MethodGet, p.URL()+"/v1/events", p.SecretKey(), "", "", "")
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("paused PSP answered: %v", err)
	}
	if info := get(t, p, "/_psp/info"); info.body["paused"] != true {
		t.Fatalf("control API while paused: %s", info.raw)
	}
	// A request waiting while paused is answered on resume.
	done := make(chan answer, 1)
	go func() { done <- form(t, p, "/v1/payment_intents", "pz", payment("100", "pm_card_visa", "pay_p")) }()
	waitFor(t, "the request to wait in the paused PSP", 5*time.Second, func() bool {
		p.life.Lock()
		defer p.life.Unlock()
		return p.inflight == 1
	})
	wantCharges(t, p, 0)
	p.Faults().Resume()
	if a := <-done; a.status != 200 {
		t.Fatalf("after resume: %d", a.status)
	}
	wantCharges(t, p, 1)
}

func TestSearchByMetadataAndLag(t *testing.T) {
	p := start(t, Config{})
	for i, order := range []string{"41", "42", "42"} {
		v := payment("100", "pm_card_visa", "pay_q")
		v.Set("metadata[order_id]", order)
		wantStatus(t, "create", form(t, p, "/v1/payment_intents", "q"+order+string(rune('a'+i)), v), 200)
	}
	q := "/v1/payment_intents/search?" + url.Values{"query": {"metadata['order_id']:'42'"}}.Encode()
	res := get(t, p, q)
	if data, _ := res.body["data"].([]any); res.str("object") != "search_result" || len(data) != 2 {
		t.Fatalf("search: %s", res.raw)
	}
	both := get(t, p, "/v1/payment_intents/search?"+url.Values{"query": {"metadata['order_id']:'42' AND status:'succeeded' AND amount>=100"}}.Encode())
	if data, _ := both.body["data"].([]any); len(data) != 2 {
		t.Fatalf("AND search: %s", both.raw)
	}
	if bad := get(t, p, "/v1/payment_intents/search?query=nonsense"); bad.status != 400 || bad.errField("param") != "query" {
		t.Fatalf("bad query: %s", bad.raw)
	}

	lag := p.Faults().Arm(FaultSpec{Kind: SearchLag, Delay: time.Hour})
	v := payment("100", "pm_card_visa", "pay_q")
	v.Set("metadata[order_id]", "43")
	wantStatus(t, "create 43", form(t, p, "/v1/payment_intents", "q43", v), 200)
	q43 := "/v1/payment_intents/search?" + url.Values{"query": {"metadata['order_id']:'43'"}}.Encode()
	if data, _ := get(t, p, q43).body["data"].([]any); len(data) != 0 {
		t.Fatalf("search saw a write made inside the lag: %v", data)
	}
	if lag.Fired() < 1 {
		t.Fatal("search lag did not fire")
	}
	lag.Undo()
	if data, _ := get(t, p, q43).body["data"].([]any); len(data) != 1 {
		t.Fatalf("after the lag: %v", data)
	}
}

func TestFaultValidation(t *testing.T) {
	p := start(t, Config{})
	for _, spec := range []FaultSpec{
		{Kind: "nope"},
		{Kind: DelayBeforeCharge},
		{Kind: LoseReply, Match: Match{Times: -1}},
		{Kind: LoseReply, Match: Match{Op: "capture"}},
		{Kind: WebhookDuplicates},
	} {
		if _, err := p.Faults().Add(spec); err == nil {
			t.Errorf("Add(%+v) accepted", spec)
		}
	}
	if f := p.Faults().Arm(FaultSpec{Kind: DelayAfterCharge, Match: Match{}, Delay: -time.Second}); f.Err() == nil {
		t.Error("negative delay accepted")
	}
}
