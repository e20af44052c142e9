package fakepsp

import (
	"net/http"
	"net/url"
	"testing"
	"time"
)

// Bad input gets Stripe-shaped 4xx, nothing is charged, and nothing is saved
// under the key: the corrected request with the same key runs.
func TestBadInputIsNotChargedNorSaved(t *testing.T) {
	p := start(t, Config{})
	c := client(5 * time.Second)
	cases := []struct {
		name, path, ctype, body string
		status                  int
		param                   string
	}{
		{"malformed form", "/v1/payment_intents", "application/x-www-form-urlencoded", "amount=%zz&currency=usd", 400, ""},
		{"malformed JSON", "/v1/payment_intents", "application/json", `{"amount": 100,`, 400, ""},
		{"JSON not an object", "/v1/payment_intents", "application/json", `[1,2]`, 400, ""},
		{"missing amount", "/v1/payment_intents", "", "currency=usd&confirm=true&payment_method=pm_card_visa", 400, "amount"},
		{"negative amount", "/v1/payment_intents", "", "amount=-5&currency=usd&confirm=true&payment_method=pm_card_visa", 400, "amount"},
		{"zero amount", "/v1/payment_intents", "", "amount=0&currency=usd&confirm=true&payment_method=pm_card_visa", 400, "amount"},
		{"amount not a number", "/v1/payment_intents", "", "amount=ten&currency=usd&confirm=true&payment_method=pm_card_visa", 400, "amount"},
		{"missing currency", "/v1/payment_intents", "", "amount=100&confirm=true&payment_method=pm_card_visa", 400, "currency"},
		{"unknown currency", "/v1/payment_intents", "", "amount=100&currency=xyz&confirm=true&payment_method=pm_card_visa", 400, "currency"},
		{"bad confirm flag", "/v1/payment_intents", "", "amount=100&currency=usd&confirm=maybe&payment_method=pm_card_visa", 400, "confirm"},
		{"confirm without payment method", "/v1/payment_intents", "", "amount=100&currency=usd&confirm=true", 400, "payment_method"},
		{"unknown intent", "/v1/payment_intents/pi_nope/confirm", "", "payment_method=pm_card_visa", 404, "intent"},
		{"refund of unknown intent", "/v1/refunds", "", "payment_intent=pi_nope", 404, "payment_intent"},
		{"refund without target", "/v1/refunds", "", "amount=5", 400, "payment_intent"},
	}
	for _, tc := range cases {
		ctype := tc.ctype
		if ctype == "" {
			ctype = "application/x-www-form-urlencoded"
		}
		a, err := do(t, c, http.MethodPost, p.URL()+tc.path, p.SecretKey(), "key-"+tc.name, ctype, tc.body)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if a.status != tc.status || a.errType() != "invalid_request_error" || a.errField("message") == "" || a.errField("param") != tc.param {
			t.Errorf("%s: %d %s; want %d invalid_request_error with param %q", tc.name, a.status, a.raw, tc.status, tc.param)
		}
		if a.replayed {
			t.Errorf("%s: replayed", tc.name)
		}
	}
	wantCharges(t, p, 0)
	// The failed validation saved nothing: the same key now runs a good request.
	ok := form(t, p, "/v1/payment_intents", "key-negative amount", payment("100", "pm_card_visa", "pay_v"))
	if ok.status != 200 || ok.replayed {
		t.Fatalf("key reused after a validation failure: %d replayed=%v %s", ok.status, ok.replayed, ok.raw)
	}
	wantCharges(t, p, 1)
	a := get(t, p, "/v1/payment_intents/pi_nope")
	if a.status != 404 || a.errCode() != "resource_missing" {
		t.Fatalf("retrieve unknown: %d %s", a.status, a.raw)
	}
	if a := get(t, p, "/v1/nothing_here"); a.status != 404 || a.errType() != "invalid_request_error" {
		t.Fatalf("unknown route: %d %s", a.status, a.raw)
	}
}

func TestRefunds(t *testing.T) {
	p := start(t, Config{})
	pi := form(t, p, "/v1/payment_intents", "pay_r:charge", payment("3000", "pm_card_visa", "pay_r"))
	wantStatus(t, "charge", pi, 200)
	r := form(t, p, "/v1/refunds", "pay_r:cancel:refund", url.Values{"payment_intent": {pi.str("id")}, "amount": {"1000"}})
	wantStatus(t, "refund", r, 200)
	again := form(t, p, "/v1/refunds", "pay_r:cancel:refund", url.Values{"payment_intent": {pi.str("id")}, "amount": {"1000"}})
	if !again.replayed || again.str("id") != r.str("id") {
		t.Fatalf("refund repeat: %s", again.raw)
	}
	over := form(t, p, "/v1/refunds", "r2", url.Values{"charge": {pi.str("latest_charge")}, "amount": {"2001"}})
	if over.status != 400 || over.errCode() != "amount_too_large" {
		t.Fatalf("over-refund: %d %s", over.status, over.raw)
	}
	rest := form(t, p, "/v1/refunds", "r3", url.Values{"charge": {pi.str("latest_charge")}})
	if rest.status != 200 || rest.body["amount"] != float64(2000) {
		t.Fatalf("refund of the rest: %s", rest.raw)
	}
	if done := form(t, p, "/v1/refunds", "r4", url.Values{"payment_intent": {pi.str("id")}}); done.errCode() != "charge_already_refunded" {
		t.Fatalf("refund of a refunded charge: %s", done.raw)
	}
	if got := get(t, p, "/v1/refunds/"+r.str("id")); got.str("payment_intent") != pi.str("id") {
		t.Fatalf("retrieve refund: %s", got.raw)
	}
	refunds := p.Refunds()
	if len(refunds) != 2 {
		t.Fatalf("refunds: %d, want 2", len(refunds))
	}
	op := refunds[0]
	if op.Op != "refund" || op.Input.PSPKey != "pay_r:cancel:refund" || *op.Input.Amount != 1000 || op.Input.ChargeID != pi.str("latest_charge") ||
		op.Output.RefundID != r.str("id") || op.PaymentID != "pay_r" || op.Intent != "/pay:phone-1:pay_r" {
		t.Fatalf("refund op: %+v", op)
	}
	if ch := get(t, p, "/v1/charges/"+pi.str("latest_charge")); ch.body["refunded"] != true {
		t.Fatalf("charge after full refund: %s", ch.raw)
	}
	wantCharges(t, p, 1)
}
