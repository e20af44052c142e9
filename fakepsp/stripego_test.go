package fakepsp

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"
)

// stripeClient points the official client at the PSP, with its own retries
// off and no connection reuse, so every copy it sends is one the test meant.
func stripeClient(p *PSP, key string) *stripe.Client {
	cfg := &stripe.BackendConfig{
		URL:               stripe.String(p.URL()),
		HTTPClient:        &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}},
		MaxNetworkRetries: stripe.Int64(0),
		LeveledLogger:     &stripe.LeveledLogger{Level: stripe.LevelNull},
	}
	return stripe.NewClient(key, stripe.WithBackends(stripe.NewBackendsWithConfig(cfg)))
}

func TestStripeGoAgainstFakePSP(t *testing.T) {
	p := start(t, Config{})
	rcv := newReceiver(t)
	sc := stripeClient(p, p.SecretKey())
	ctx := context.Background()

	we, err := sc.V1WebhookEndpoints.Create(ctx, &stripe.WebhookEndpointCreateParams{
		URL: stripe.String(rcv.server.URL), EnabledEvents: []*string{stripe.String("payment_intent.succeeded")}})
	if err != nil {
		t.Fatalf("webhook endpoint: %v", err)
	}
	if we.Secret != p.WebhookSecret() {
		t.Fatalf("endpoint secret %q", we.Secret)
	}

	params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(3000), Currency: stripe.String("usd"),
		Metadata: map[string]string{"payment_id": "pay_7", "intent": "/pay:phone-1:K1", "order_id": "42"}}
	params.SetIdempotencyKey("pay_7:create")
	pi, err := sc.V1PaymentIntents.Create(ctx, params)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if pi.Status != stripe.PaymentIntentStatusRequiresPaymentMethod || pi.Amount != 3000 {
		t.Fatalf("created: %s %d", pi.Status, pi.Amount)
	}

	confirm := func() *stripe.PaymentIntent {
		cp := &stripe.PaymentIntentConfirmParams{PaymentMethod: stripe.String("pm_card_visa")}
		cp.SetIdempotencyKey("pay_7:charge")
		got, err := sc.V1PaymentIntents.Confirm(ctx, pi.ID, cp)
		if err != nil {
			t.Fatalf("confirm: %v", err)
		}
		return got
	}
	first := confirm()
	if first.Status != stripe.PaymentIntentStatusSucceeded || first.LatestCharge == nil || first.LatestCharge.ID == "" {
		t.Fatalf("confirmed: %s %+v", first.Status, first.LatestCharge)
	}
	if first.LastResponse.Header.Get("Idempotent-Replayed") != "" {
		t.Fatal("first confirm marked replayed")
	}
	second := confirm()
	if second.LastResponse.Header.Get("Idempotent-Replayed") != "true" || second.LatestCharge.ID != first.LatestCharge.ID {
		t.Fatalf("replay: header %q charge %s", second.LastResponse.Header.Get("Idempotent-Replayed"), second.LatestCharge.ID)
	}
	wantCharges(t, p, 1)
	op := p.Charges()[0]
	if op.Input.PSPKey != "pay_7:charge" || op.Output.ChargeID != first.LatestCharge.ID || op.PaymentID != "pay_7" ||
		op.Intent != "/pay:phone-1:K1" || op.Process != "psp" || op.Call != *op.Return {
		t.Fatalf("ground truth: %+v", op)
	}

	got, err := sc.V1PaymentIntents.Retrieve(ctx, pi.ID, nil)
	if err != nil || got.Status != stripe.PaymentIntentStatusSucceeded {
		t.Fatalf("retrieve: %v %v", got, err)
	}
	var found []string
	for x, err := range sc.V1PaymentIntents.Search(ctx, &stripe.PaymentIntentSearchParams{
		SearchParams: stripe.SearchParams{Query: "metadata['order_id']:'42'"}}).All(ctx) {
		if err != nil {
			t.Fatalf("search: %v", err)
		}
		found = append(found, x.ID)
	}
	if len(found) != 1 || found[0] != pi.ID {
		t.Fatalf("search found %v", found)
	}

	// A decline is a *stripe.Error of type card_error, 402.
	dp := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(100), Currency: stripe.String("usd"),
		Confirm: stripe.Bool(true), PaymentMethod: stripe.String("pm_card_visa_chargeDeclinedInsufficientFunds")}
	_, err = sc.V1PaymentIntents.Create(ctx, dp)
	var se *stripe.Error
	if !errors.As(err, &se) || se.Type != stripe.ErrorTypeCard || se.HTTPStatusCode != 402 || se.DeclineCode != "insufficient_funds" {
		t.Fatalf("decline: %v", err)
	}

	// The webhook verifies with stripe-go's webhook package.
	waitFor(t, "payment_intent.succeeded", 5*time.Second, func() bool { return len(rcv.all()) == 1 })
	r := rcv.all()[0]
	ev, err := webhook.ConstructEvent(r.body, r.sig, we.Secret)
	if err != nil {
		t.Fatalf("ConstructEvent: %v", err)
	}
	if ev.Type != stripe.EventTypePaymentIntentSucceeded || ev.APIVersion != stripe.APIVersion || ev.Data.Object["id"] != pi.ID {
		t.Fatalf("event %s %s %v", ev.Type, ev.APIVersion, ev.Data.Object["id"])
	}
	evs := sc.V1Events.List(ctx, &stripe.EventListParams{})
	n := 0
	for _, err := range evs.All(ctx) {
		if err != nil {
			t.Fatalf("events: %v", err)
		}
		n++
	}
	if n != 6 { // created and charged: payment_intent.created, charge.succeeded, payment_intent.succeeded; declined: payment_intent.created, charge.failed, payment_intent.payment_failed
		t.Fatalf("events listed: %d, want 6", n)
	}
}

func TestStripeGoRefund(t *testing.T) {
	p := start(t, Config{})
	sc := stripeClient(p, p.SecretKey())
	ctx := context.Background()
	pi, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(500), Currency: stripe.String("gbp"),
		Confirm: stripe.Bool(true), PaymentMethod: stripe.String("pm_1")})
	if err != nil {
		t.Fatal(err)
	}
	rp := &stripe.RefundCreateParams{PaymentIntent: stripe.String(pi.ID)}
	rp.SetIdempotencyKey("pay_9:cancel:refund")
	rf, err := sc.V1Refunds.Create(ctx, rp)
	if err != nil || rf.Amount != 500 || rf.Status != stripe.RefundStatusSucceeded {
		t.Fatalf("refund: %+v %v", rf, err)
	}
	back, err := sc.V1Refunds.Retrieve(ctx, rf.ID, nil)
	if err != nil || back.ID != rf.ID {
		t.Fatalf("retrieve refund: %v", err)
	}
	if len(p.Refunds()) != 1 || p.Refunds()[0].Input.ChargeID != pi.LatestCharge.ID {
		t.Fatalf("ground truth refunds: %+v", p.Refunds())
	}
}
