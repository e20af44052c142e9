package fakepsp

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestReplayOfSuccess(t *testing.T) {
	p := start(t, Config{})
	first := form(t, p, "/v1/payment_intents", "pay_7:charge", payment("3000", "pm_card_visa", "pay_7"))
	wantStatus(t, "first", first, 200)
	if first.replayed || first.str("status") != "succeeded" || first.str("latest_charge") == "" {
		t.Fatalf("first: replayed=%v status=%q latest_charge=%q", first.replayed, first.str("status"), first.str("latest_charge"))
	}
	again := form(t, p, "/v1/payment_intents", "pay_7:charge", payment("3000", "pm_card_visa", "pay_7"))
	wantStatus(t, "repeat", again, 200)
	if !again.replayed || string(again.raw) != string(first.raw) {
		t.Fatalf("repeat: replayed=%v, body differs: %s vs %s", again.replayed, again.raw, first.raw)
	}
	if again.header.Get("Request-Id") != first.header.Get("Request-Id") {
		t.Fatalf("replay Request-Id %q, want the original %q", again.header.Get("Request-Id"), first.header.Get("Request-Id"))
	}
	wantCharges(t, p, 1)
}

func TestReplayOfSaved500(t *testing.T) {
	for _, tc := range []struct {
		kind    FaultKind
		charges int
	}{{Error500AfterCharge, 1}, {Error500BeforeCharge, 0}} {
		t.Run(string(tc.kind), func(t *testing.T) {
			p := start(t, Config{})
			f, err := p.Faults().Add(FaultSpec{Kind: tc.kind, Match: Match{PSPKey: "pay_1:charge", Times: 1}})
			if err != nil {
				t.Fatal(err)
			}
			first := form(t, p, "/v1/payment_intents", "pay_1:charge", payment("1000", "pm_card_visa", "pay_1"))
			wantStatus(t, "first", first, 500)
			if first.errType() != "api_error" {
				t.Fatalf("first error type %q, want api_error", first.errType())
			}
			again := form(t, p, "/v1/payment_intents", "pay_1:charge", payment("1000", "pm_card_visa", "pay_1"))
			wantStatus(t, "repeat", again, 500)
			if !again.replayed || string(again.raw) != string(first.raw) {
				t.Fatalf("repeat not the saved 500: replayed=%v %s", again.replayed, again.raw)
			}
			if f.Fired() != 1 {
				t.Fatalf("fault fired %d times, want 1", f.Fired())
			}
			wantCharges(t, p, tc.charges)
		})
	}
}

func TestReplayOfDecline(t *testing.T) {
	p := start(t, Config{})
	for pm, code := range map[string]string{"pm_card_chargeDeclined": "generic_decline", "pm_card_visa_chargeDeclinedInsufficientFunds": "insufficient_funds"} {
		key := "k-" + pm
		first := form(t, p, "/v1/payment_intents", key, payment("500", pm, "pay_d"))
		wantStatus(t, pm, first, http.StatusPaymentRequired)
		if first.errType() != "card_error" || first.errCode() != "card_declined" || first.errField("decline_code") != code {
			t.Fatalf("%s: error %s", pm, first.raw)
		}
		again := form(t, p, "/v1/payment_intents", key, payment("500", pm, "pay_d"))
		wantStatus(t, pm+" repeat", again, http.StatusPaymentRequired)
		if !again.replayed || string(again.raw) != string(first.raw) {
			t.Fatalf("%s: repeat not replayed: %s", pm, again.raw)
		}
	}
	wantCharges(t, p, 0)
	if n := len(p.Deliveries()); n != 0 {
		t.Fatalf("deliveries without endpoints: %d", n)
	}
}

func TestMismatchGives400(t *testing.T) {
	p := start(t, Config{})
	wantStatus(t, "first", form(t, p, "/v1/payment_intents", "K1", payment("3000", "pm_card_visa", "pay_1")), 200)
	other := form(t, p, "/v1/payment_intents", "K1", payment("3500", "pm_card_visa", "pay_1"))
	wantStatus(t, "other amount", other, 400)
	if other.errType() != "idempotency_error" {
		t.Fatalf("type %q, want idempotency_error: %s", other.errType(), other.raw)
	}
	created := form(t, p, "/v1/payment_intents", "K2", url.Values{"amount": {"100"}, "currency": {"usd"}})
	wantStatus(t, "create", created, 200)
	endpoint := form(t, p, "/v1/payment_intents/"+created.str("id")+"/confirm", "K1", url.Values{"payment_method": {"pm_card_visa"}})
	wantStatus(t, "other endpoint", endpoint, 400)
	if endpoint.errType() != "idempotency_error" {
		t.Fatalf("type %q, want idempotency_error", endpoint.errType())
	}
	wantCharges(t, p, 1)
}

// Two requests race on one key: a gate holds the first while executing, so
// the second deterministically meets it in flight.
func TestConcurrentRepeatGets409(t *testing.T) {
	p := start(t, Config{})
	gate := p.Faults().Arm(FaultSpec{Kind: GateBeforeCharge, Match: Match{PSPKey: "pay_2:charge", Times: 1}})
	var wg sync.WaitGroup
	var first answer
	wg.Add(1)
	go func() {
		defer wg.Done()
		first = form(t, p, "/v1/payment_intents", "pay_2:charge", payment("3000", "pm_card_visa", "pay_2"))
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := gate.WaitFired(ctx, 1); err != nil {
		t.Fatal(err)
	}
	second := form(t, p, "/v1/payment_intents", "pay_2:charge", payment("3000", "pm_card_visa", "pay_2"))
	wantStatus(t, "second", second, http.StatusConflict)
	if second.errCode() != "idempotency_key_in_use" || second.replayed {
		t.Fatalf("second: %s", second.raw)
	}
	gate.Release()
	wg.Wait()
	wantStatus(t, "first", first, 200)
	wantCharges(t, p, 1)
	// Nothing was saved for the 409: the next repeat replays the first.
	third := form(t, p, "/v1/payment_intents", "pay_2:charge", payment("3000", "pm_card_visa", "pay_2"))
	if third.status != 200 || !third.replayed || third.str("id") != first.str("id") {
		t.Fatalf("third: %d replayed=%v %s", third.status, third.replayed, third.raw)
	}
}

func TestKeyLength(t *testing.T) {
	p := start(t, Config{})
	long := form(t, p, "/v1/payment_intents", strings.Repeat("k", 256), payment("100", "pm_card_visa", "pay_l"))
	wantStatus(t, "256 chars", long, 400)
	if long.errType() != "invalid_request_error" {
		t.Fatalf("type %q", long.errType())
	}
	wantCharges(t, p, 0)
	wantStatus(t, "255 chars", form(t, p, "/v1/payment_intents", strings.Repeat("k", 255), payment("100", "pm_card_visa", "pay_l")), 200)
	wantCharges(t, p, 1)
}

func TestExpiredKeyStartsNewRequest(t *testing.T) {
	p := start(t, Config{KeyWindow: time.Hour})
	wantStatus(t, "first", form(t, p, "/v1/payment_intents", "K", payment("100", "pm_card_visa", "pay_e")), 200)
	p.Advance(59 * time.Minute)
	if a := form(t, p, "/v1/payment_intents", "K", payment("100", "pm_card_visa", "pay_e")); !a.replayed {
		t.Fatalf("inside the window: not replayed: %s", a.raw)
	}
	p.Advance(time.Minute)
	a := form(t, p, "/v1/payment_intents", "K", payment("100", "pm_card_visa", "pay_e"))
	wantStatus(t, "after the window", a, 200)
	if a.replayed {
		t.Fatal("after the window: replayed, want a new request")
	}
	wantCharges(t, p, 2)
}

func TestClockOverrideDrivesExpiry(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := start(t, Config{Clock: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }})
	wantStatus(t, "first", form(t, p, "/v1/payment_intents", "K", payment("100", "pm_card_visa", "pay_c")), 200)
	mu.Lock()
	now = now.Add(24 * time.Hour)
	mu.Unlock()
	if a := form(t, p, "/v1/payment_intents", "K", payment("100", "pm_card_visa", "pay_c")); a.replayed {
		t.Fatal("default 24 h window: replayed after 24 h")
	}
	wantCharges(t, p, 2)
}

func TestAuthBeforeIdempotency(t *testing.T) {
	p := start(t, Config{})
	wantStatus(t, "first", form(t, p, "/v1/payment_intents", "K", payment("100", "pm_card_visa", "pay_a")), 200)
	c := client(5 * time.Second)
	body := payment("100", "pm_card_visa", "pay_a").Encode()
	for _, sk := range []string{"", "sk_test_unknown"} {
		a, err := do(t, c, http.MethodPost, p.URL()+"/v1/payment_intents", sk, "K", "application/x-www-form-urlencoded", body)
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, "key "+sk, a, 401)
		if a.replayed || a.errType() != "invalid_request_error" {
			t.Fatalf("key %q: %s", sk, a.raw)
		}
	}
	wantCharges(t, p, 1)
}

func TestKeysBelongToOneAccount(t *testing.T) {
	p := start(t, Config{})
	other := p.NewAccount()
	first := form(t, p, "/v1/payment_intents", "K", payment("100", "pm_card_visa", "pay_s"))
	wantStatus(t, "account 1", first, 200)
	a, err := do(t, client(5*time.Second), http.MethodPost, p.URL()+"/v1/payment_intents", other, "K", "application/x-www-form-urlencoded", payment("100", "pm_card_visa", "pay_s").Encode())
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "account 2", a, 200)
	if a.replayed {
		t.Fatal("account 2 got account 1's saved answer")
	}
	b, err := do(t, client(5*time.Second), http.MethodGet, p.URL()+"/v1/payment_intents/"+first.str("id"), other, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "account 2 reads account 1's intent", b, 404)
	wantCharges(t, p, 2)
}

// Stripe reads only form bodies: a JSON body is refused before anything
// runs, so nothing is charged and nothing is saved under its key.
func TestJSONBodyIsRefused(t *testing.T) {
	p := start(t, Config{})
	js := `{"amount":700,"currency":"usd","confirm":true,"payment_method":"pm_card_visa","metadata":{"payment_id":"pay_j"}}`
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "text/plain"} {
		a, err := do(t, client(5*time.Second), http.MethodPost, p.URL()+"/v1/payment_intents", p.SecretKey(), "K", ct, js)
		if err != nil {
			t.Fatal(err)
		}
		want := "Invalid request: unsupported Content-Type " + ct + ". If error persists and you need assistance, please contact support@stripe.com."
		if a.status != 400 || a.replayed || a.errType() != "invalid_request_error" || a.errField("message") != want {
			t.Fatalf("%s body: %d replayed=%v %s", ct, a.status, a.replayed, a.raw)
		}
	}
	wantCharges(t, p, 0)
	// Nothing was saved under K: the form request with it runs.
	ok := form(t, p, "/v1/payment_intents", "K", payment("700", "pm_card_visa", "pay_j"))
	if ok.status != 200 || ok.replayed {
		t.Fatalf("form request after refused JSON: %d replayed=%v %s", ok.status, ok.replayed, ok.raw)
	}
	wantCharges(t, p, 1)
}

func TestConfirmFlow(t *testing.T) {
	p := start(t, Config{})
	created := form(t, p, "/v1/payment_intents", "c1", url.Values{"amount": {"900"}, "currency": {"eur"}, "metadata[order_id]": {"42"}})
	wantStatus(t, "create", created, 200)
	if created.str("status") != "requires_payment_method" {
		t.Fatalf("status %q", created.str("status"))
	}
	wantCharges(t, p, 0)
	path := "/v1/payment_intents/" + created.str("id") + "/confirm"
	confirmed := form(t, p, path, "c2", url.Values{"payment_method": {"pm_1"}})
	wantStatus(t, "confirm", confirmed, 200)
	if confirmed.str("status") != "succeeded" {
		t.Fatalf("status %q", confirmed.str("status"))
	}
	again := form(t, p, path, "c3", url.Values{"payment_method": {"pm_1"}})
	wantStatus(t, "second confirm, new key", again, 400)
	if again.errCode() != "payment_intent_unexpected_state" {
		t.Fatalf("code %q", again.errCode())
	}
	got := get(t, p, "/v1/payment_intents/"+created.str("id"))
	if got.str("status") != "succeeded" || got.str("latest_charge") != confirmed.str("latest_charge") {
		t.Fatalf("retrieve: %s", got.raw)
	}
	ch := get(t, p, "/v1/charges/"+got.str("latest_charge"))
	wantStatus(t, "charge", ch, 200)
	wantCharges(t, p, 1)
	if c := p.Charges()[0]; c.Input.PSPKey != "c2" || *c.Input.Amount != 900 || c.Input.Metadata["order_id"] != "42" {
		t.Fatalf("ground truth: %+v", c)
	}
}

func TestDeclineThenRetryWithNewKey(t *testing.T) {
	p := start(t, Config{})
	created := form(t, p, "/v1/payment_intents", "d1", url.Values{"amount": {"900"}, "currency": {"usd"}})
	path := "/v1/payment_intents/" + created.str("id") + "/confirm"
	wantStatus(t, "declined", form(t, p, path, "d2", url.Values{"payment_method": {"pm_card_chargeDeclined"}}), 402)
	if st := get(t, p, "/v1/payment_intents/"+created.str("id")).str("status"); st != "requires_payment_method" {
		t.Fatalf("after decline: %q", st)
	}
	wantStatus(t, "second attempt", form(t, p, path, "d3", url.Values{"payment_method": {"pm_card_visa"}}), 200)
	wantCharges(t, p, 1)
}
