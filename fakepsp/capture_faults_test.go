package fakepsp

import (
	"net/url"
	"testing"
	"time"
)

// Each step of a manual payment is a charge point of its own: a reply lost
// after the authorization, the capture or the cancel leaves the step done and
// saved, and the retry with the same key is replayed, not done again.
func TestLostRepliesOfAuthorizeCaptureCancel(t *testing.T) {
	p := start(t, Config{})
	post := func(path, key string, v url.Values) (answer, error) {
		return do(t, client(5*time.Second), "POST", p.URL()+path, p.SecretKey(), key, "application/x-www-form-urlencoded", v.Encode())
	}
	lose := func(key, op string) *Fault {
		return p.Faults().Arm(FaultSpec{Kind: LoseReply, Match: Match{PSPKey: key, Op: op, Times: 1}})
	}

	auth := payment("2000", "pm_card_visa", "pay_l")
	auth.Set("capture_method", "manual")
	fa := lose("pay_l:authorize", "authorize")
	if _, err := post("/v1/payment_intents", "pay_l:authorize", auth); err == nil || fa.Fired() != 1 {
		t.Fatalf("authorize with a lost reply: err %v, fired %d", err, fa.Fired())
	}
	wantCharges(t, p, 0)
	a, err := post("/v1/payment_intents", "pay_l:authorize", auth)
	if err != nil || !a.replayed || a.str("status") != "requires_capture" {
		t.Fatalf("authorize retry: %v %s", err, a.raw)
	}
	pi := a.str("id")

	fc := lose("pay_l:capture", "charge")
	capture := url.Values{"amount_to_capture": {"1500"}}
	if _, err := post("/v1/payment_intents/"+pi+"/capture", "pay_l:capture", capture); err == nil || fc.Fired() != 1 {
		t.Fatalf("capture with a lost reply: err %v, fired %d", err, fc.Fired())
	}
	wantCharges(t, p, 1)
	c, err := post("/v1/payment_intents/"+pi+"/capture", "pay_l:capture", capture)
	if err != nil || !c.replayed || c.str("status") != "succeeded" || c.body["amount_received"] != float64(1500) {
		t.Fatalf("capture retry: %v %s", err, c.raw)
	}
	wantCharges(t, p, 1)
	if op := p.Charges()[0]; *op.Input.Amount != 1500 || op.Input.PSPKey != "pay_l:capture" {
		t.Fatalf("capture op: %+v", op)
	}

	other := payment("300", "pm_card_visa", "pay_k")
	other.Set("capture_method", "manual")
	o, err := post("/v1/payment_intents", "pay_k:authorize", other)
	if err != nil || o.status != 200 {
		t.Fatalf("second authorize: %v %s", err, o.raw)
	}
	fx := lose("pay_k:cancel", "cancel")
	if _, err := post("/v1/payment_intents/"+o.str("id")+"/cancel", "pay_k:cancel", url.Values{}); err == nil || fx.Fired() != 1 {
		t.Fatalf("cancel with a lost reply: err %v, fired %d", err, fx.Fired())
	}
	x, err := post("/v1/payment_intents/"+o.str("id")+"/cancel", "pay_k:cancel", url.Values{})
	if err != nil || !x.replayed || x.str("status") != "canceled" {
		t.Fatalf("cancel retry: %v %s", err, x.raw)
	}
	wantCharges(t, p, 1)
}
