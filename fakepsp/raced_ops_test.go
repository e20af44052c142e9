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

// The state a payment operation checks is checked again at the moment of
// the effect (core.Ops): a request held at the gate before the effect while
// another request changes the payment answers Stripe's unexpected-state
// error for the state it finds, and moves no money.

// raced holds the request under key at the gate, runs between, then lets
// the held request go on and returns its answer.
func raced(t *testing.T, p *PSP, path, key string, v url.Values, between func()) answer {
	t.Helper()
	gate := p.Faults().Arm(FaultSpec{Kind: GateBeforeCharge, Match: Match{PSPKey: key, Times: 1}})
	var wg sync.WaitGroup
	var held answer
	wg.Add(1)
	go func() {
		defer wg.Done()
		held = form(t, p, path, key, v)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := gate.WaitFired(ctx, 1); err != nil {
		t.Fatal(err)
	}
	between()
	gate.Release()
	wg.Wait()
	return held
}

func wantUnexpectedState(t *testing.T, what string, a answer, status string) {
	t.Helper()
	wantStatus(t, what, a, http.StatusBadRequest)
	if a.errCode() != "payment_intent_unexpected_state" || !strings.Contains(a.errField("message"), "status of "+status) {
		t.Fatalf("%s: want unexpected state %s, got %s", what, status, a.raw)
	}
}

// TestConfirmLosesToAConcurrentConfirm: the held confirmation finds the
// intent succeeded; one charge in all.
func TestConfirmLosesToAConcurrentConfirm(t *testing.T) {
	p := start(t, Config{})
	pi := form(t, p, "/v1/payment_intents", "create", url.Values{"amount": {"1000"}, "currency": {"usd"}, "payment_method": {"pm_card_visa"}})
	confirm := "/v1/payment_intents/" + pi.str("id") + "/confirm"
	held := raced(t, p, confirm, "confirm-a", url.Values{}, func() {
		wantStatus(t, "other confirm", form(t, p, confirm, "confirm-b", url.Values{}), http.StatusOK)
	})
	wantUnexpectedState(t, "held confirm", held, "succeeded")
	wantCharges(t, p, 1)
}

// TestCaptureLosesToAConcurrentCancel: the held capture finds the intent
// canceled; no charge.
func TestCaptureLosesToAConcurrentCancel(t *testing.T) {
	p, base := authorized(t)
	held := raced(t, p, base+"/capture", "capture", url.Values{}, func() {
		wantStatus(t, "cancel", form(t, p, base+"/cancel", "cancel", url.Values{}), http.StatusOK)
	})
	wantUnexpectedState(t, "held capture", held, "canceled")
	wantCharges(t, p, 0)
}

// TestCancelLosesToAConcurrentCapture: the held cancel finds the intent
// succeeded; the capture's one charge stands.
func TestCancelLosesToAConcurrentCapture(t *testing.T) {
	p, base := authorized(t)
	held := raced(t, p, base+"/cancel", "cancel", url.Values{}, func() {
		wantStatus(t, "capture", form(t, p, base+"/capture", "capture", url.Values{}), http.StatusOK)
	})
	wantUnexpectedState(t, "held cancel", held, "succeeded")
	wantCharges(t, p, 1)
}

// TestRefundLosesToAConcurrentRefund: two whole refunds of one charge; the
// held one finds nothing left (charge_already_refunded); one refund op.
func TestRefundLosesToAConcurrentRefund(t *testing.T) {
	p := start(t, Config{})
	pi := form(t, p, "/v1/payment_intents", "create", payment("1000", "pm_card_visa", "p1"))
	v := url.Values{"payment_intent": {pi.str("id")}}
	held := raced(t, p, "/v1/refunds", "refund-a", v, func() {
		wantStatus(t, "other refund", form(t, p, "/v1/refunds", "refund-b", v), http.StatusOK)
	})
	wantStatus(t, "held refund", held, http.StatusBadRequest)
	if held.errCode() != "charge_already_refunded" {
		t.Fatalf("held refund: %s", held.raw)
	}
	if got := len(p.Refunds()); got != 1 {
		t.Fatalf("refunds: %d, want 1", got)
	}
}

// authorized starts a PSP with one confirmed manual-capture intent (its
// money authorized, not captured) and returns the intent's path.
func authorized(t *testing.T) (*PSP, string) {
	t.Helper()
	p := start(t, Config{})
	pi := form(t, p, "/v1/payment_intents", "create", url.Values{"amount": {"1000"}, "currency": {"usd"}, "confirm": {"true"},
		"payment_method": {"pm_card_visa"}, "capture_method": {"manual"}})
	return p, "/v1/payment_intents/" + pi.str("id")
}
