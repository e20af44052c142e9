package fakepsp

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

func ctl(t *testing.T, p *PSP, method, path, body string) (int, map[string]any, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, p.URL()+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := client(5 * time.Second).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	var raw json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return resp.StatusCode, m, raw
}

func TestControlAPI(t *testing.T) {
	p := start(t, Config{KeyWindow: time.Hour})
	code, f, raw := ctl(t, p, "POST", "/_psp/faults", `{"kind":"error_500_after_charge","psp_key":"pay_c:charge","times":1}`)
	if code != 201 || f["id"] == "" || f["armed"] != true {
		t.Fatalf("arm: %d %s", code, raw)
	}
	id := f["id"].(string)
	wantStatus(t, "charge", form(t, p, "/v1/payment_intents", "pay_c:charge", payment("100", "pm_card_visa", "pay_c")), 500)
	if _, got, raw := ctl(t, p, "GET", "/_psp/faults/"+id, ""); got["fired"] != float64(1) || got["armed"] != false {
		t.Fatalf("after firing: %s", raw)
	}
	if code, _, _ := ctl(t, p, "DELETE", "/_psp/faults/"+id, ""); code != 200 {
		t.Fatalf("delete: %d", code)
	}
	if code, _, raw := ctl(t, p, "GET", "/_psp/faults", ""); code != 200 || !strings.Contains(string(raw), id) {
		t.Fatalf("list: %s", raw)
	}

	for _, bad := range []string{`{"kind":"nope"}`, `{"kind":"delay_before_charge","delay":"soon"}`, `{"kind":"lose_reply","bogus":1}`, `not json`} {
		if code, m, _ := ctl(t, p, "POST", "/_psp/faults", bad); code != 400 || m["error"] == "" {
			t.Errorf("bad fault %s: %d", bad, code)
		}
	}
	if code, _, _ := ctl(t, p, "GET", "/_psp/faults/f999", ""); code != 404 {
		t.Errorf("unknown fault: %d", code)
	}

	// A gate armed over HTTP, released over HTTP.
	_, g, _ := ctl(t, p, "POST", "/_psp/faults", `{"kind":"gate_before_charge","amount":777}`)
	done := make(chan answer, 1)
	go func() { done <- form(t, p, "/v1/payment_intents", "g", payment("777", "pm_card_visa", "pay_g")) }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	gf, err := p.Faults().Get(g["id"].(string))
	if err != nil || gf == nil {
		t.Fatalf("Get(%s) = %v, %v", g["id"], gf, err)
	}
	if err := gf.WaitFired(ctx, 1); err != nil {
		t.Fatal(err)
	}
	ctl(t, p, "POST", "/_psp/faults/"+g["id"].(string)+"/release", "")
	if a := <-done; a.status != 200 {
		t.Fatalf("gated request: %d", a.status)
	}

	if _, m, _ := ctl(t, p, "POST", "/_psp/pause", ""); m["paused"] != true || !p.pause.Paused() {
		t.Fatal("pause over HTTP")
	}
	if _, m, _ := ctl(t, p, "POST", "/_psp/resume", ""); m["paused"] != false || p.pause.Paused() {
		t.Fatal("resume over HTTP")
	}

	// The clock moves past the key window: the key starts a new request.
	wantStatus(t, "k", form(t, p, "/v1/payment_intents", "k", payment("100", "pm_card_visa", "pay_k")), 200)
	if code, _, raw := ctl(t, p, "POST", "/_psp/clock/advance", `{"by":"1h"}`); code != 200 {
		t.Fatalf("advance: %s", raw)
	}
	if a := form(t, p, "/v1/payment_intents", "k", payment("100", "pm_card_visa", "pay_k")); a.replayed {
		t.Fatal("key not expired after advancing the clock")
	}
	if code, _, _ := ctl(t, p, "POST", "/_psp/clock/advance", `{"by":"-1h"}`); code != 400 {
		t.Fatal("negative advance accepted")
	}

	_, acct, _ := ctl(t, p, "POST", "/_psp/accounts", "")
	if sk, _ := acct["secret_key"].(string); !strings.HasPrefix(sk, "sk_test_") || !p.api.HasAccount(sk) {
		t.Fatalf("new account: %v", acct)
	}
	if _, info, _ := ctl(t, p, "GET", "/_psp/info", ""); info["secret_key"] != p.SecretKey() || info["webhook_secret"] != p.WebhookSecret() || info["url"] != p.URL() {
		t.Fatalf("info: %v", info)
	}
	if code, _, _ := ctl(t, p, "GET", "/_psp/deliveries", ""); code != 200 {
		t.Fatal("deliveries")
	}
	if code, _, _ := ctl(t, p, "GET", "/_psp/nothing", ""); code != 404 {
		t.Fatal("unknown control route")
	}
	wantCharges(t, p, 4)
}
