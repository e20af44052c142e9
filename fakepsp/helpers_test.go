package fakepsp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"
)

// start runs a PSP for one test with rate limits off (tests that test them
// turn them on) and checks that Close leaves no goroutine of ours behind.
func start(t testing.TB, cfg Config) *PSP {
	t.Helper()
	if cfg.RateLimits == (RateLimits{}) {
		cfg.RateLimits.Disabled = true
	}
	p, err := Start(cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		assertNoLeaks(t)
	})
	return p
}

// assertNoLeaks polls (bounded) until no goroutine runs PSP code.
func assertNoLeaks(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		var leaked []string
		for _, g := range strings.Split(stacks, "\n\n") {
			for _, fn := range []string{"fakepsp.(*PSP)", "fakepsp.host.", "fakepsp/core.", "fakepsp/stripe."} {
				if strings.Contains(g, fn) {
					leaked = append(leaked, g)
					break
				}
			}
		}
		if len(leaked) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines of the PSP still running after Close:\n%s", len(leaked), strings.Join(leaked, "\n\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// client sends every request on a fresh connection: net/http must not
// replay a request carrying Idempotency-Key by itself (docs/PITFALLS.md#net-http).
func client(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
}

type answer struct {
	status   int
	header   http.Header
	raw      []byte
	body     map[string]any
	replayed bool
}

func (a answer) errType() string { return a.errField("type") }
func (a answer) errCode() string { return a.errField("code") }
func (a answer) errField(k string) string {
	e, _ := a.body["error"].(map[string]any)
	s, _ := e[k].(string)
	return s
}
func (a answer) str(k string) string { s, _ := a.body[k].(string); return s }

// do sends one request with sk as the secret key and idemKey (if any).
func do(t testing.TB, c *http.Client, method, u, sk, idemKey, contentType, body string) (answer, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if sk != "" {
		req.Header.Set("Authorization", "Bearer "+sk)
	}
	if idemKey != "" {
		req.Header.Set("Idempotency-Key", idemKey)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, err
	}
	a := answer{status: resp.StatusCode, header: resp.Header, raw: raw, replayed: resp.Header.Get("Idempotent-Replayed") == "true"}
	if err := json.Unmarshal(raw, &a.body); err != nil {
		t.Fatalf("%s %s: answer is not JSON (%d): %q", method, u, resp.StatusCode, raw)
	}
	return a, nil
}

// form POSTs form-encoded values and fails the test on a transport error.
func form(t testing.TB, p *PSP, path, idemKey string, v url.Values) answer {
	t.Helper()
	a, err := do(t, client(5*time.Second), http.MethodPost, p.URL()+path, p.SecretKey(), idemKey, "application/x-www-form-urlencoded", v.Encode())
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	return a
}

func get(t testing.TB, p *PSP, path string) answer {
	t.Helper()
	a, err := do(t, client(5*time.Second), http.MethodGet, p.URL()+path, p.SecretKey(), "", "", "")
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return a
}

// payment is a PaymentIntent create with confirm=true.
func payment(amount, pm, paymentID string) url.Values {
	return url.Values{"amount": {amount}, "currency": {"usd"}, "confirm": {"true"}, "payment_method": {pm},
		"metadata[payment_id]": {paymentID}, "metadata[intent]": {"/pay:phone-1:" + paymentID}}
}

func wantStatus(t testing.TB, what string, a answer, status int) {
	t.Helper()
	if a.status != status {
		t.Fatalf("%s: status %d, want %d; body %s", what, a.status, status, a.raw)
	}
}

func wantCharges(t testing.TB, p *PSP, n int) {
	t.Helper()
	if got := len(p.Charges()); got != n {
		t.Fatalf("charges: %d, want %d: %+v", got, n, p.Charges())
	}
}

// waitFor polls cond until true or a bounded deadline.
func waitFor(t testing.TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
