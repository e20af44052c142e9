package fakepsp

import (
	"net/url"
	"testing"
	"time"
)

// With a search lag, a PaymentIntent is found by its id at once and by search
// only once its lag has passed, and the lag differs between objects.
func TestSearchIsEventuallyConsistent(t *testing.T) {
	const lag = 600 * time.Millisecond
	p := start(t, Config{SearchLag: lag, SearchSeed: 7})
	made := time.Now()
	a := form(t, p, "/v1/payment_intents", "k1", payment("100", "pm_card_visa", "pay_lag"))
	wantStatus(t, "create", a, 200)
	q := "/v1/payment_intents/search?" + url.Values{"query": {"metadata['payment_id']:'pay_lag'"}}.Encode()
	if data, _ := get(t, p, q).body["data"].([]any); len(data) != 0 && time.Since(made) < lag/2 {
		t.Fatalf("search found a PaymentIntent %v after its create, inside the lag's lower bound %v", time.Since(made), lag/2)
	}
	if r := get(t, p, "/v1/payment_intents/"+a.str("id")); r.status != 200 || r.str("status") != "succeeded" {
		t.Fatalf("retrieve by id: %d %s", r.status, r.raw)
	}
	waitFor(t, "search to see the PaymentIntent", 3*lag, func() bool {
		data, _ := get(t, p, q).body["data"].([]any)
		return len(data) == 1
	})
	if took := time.Since(made); took < lag/2 {
		t.Fatalf("search saw the PaymentIntent after %v, before half the lag", took)
	}
}

func TestSearchDelayIsBoundedAndDrawnPerObject(t *testing.T) {
	p := &PSP{cfg: Config{SearchLag: time.Second, SearchSeed: 3}}
	seen := map[time.Duration]bool{}
	for _, id := range []string{"pi_a", "pi_b", "pi_c", "pi_d", "pi_e", "pi_f"} {
		d := p.searchDelay(id, 0)
		if d < 500*time.Millisecond || d > time.Second {
			t.Fatalf("delay of %s: %v, want between 500ms and 1s", id, d)
		}
		if d != p.searchDelay(id, 0) {
			t.Fatalf("delay of %s is not a function of the seed and the object", id)
		}
		seen[d] = true
	}
	if len(seen) < 2 {
		t.Fatalf("every object got the same delay: %v", seen)
	}
	if d := (&PSP{}).searchDelay("pi_a", 0); d != 0 {
		t.Fatalf("no lag configured, delay %v", d)
	}
}
