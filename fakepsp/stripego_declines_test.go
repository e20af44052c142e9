package fakepsp

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"
)

// A decline as a service meets it through stripe-go: the 402 names the
// decline code, the failed charge and the card; the intent read back points
// at that failed charge; a later good card charges once.
func TestStripeGoDeclineInFull(t *testing.T) {
	p := start(t, Config{})
	rcv := newReceiver(t)
	if _, err := p.RegisterWebhook(rcv.server.URL); err != nil {
		t.Fatal(err)
	}
	sc := stripeClient(p, p.SecretKey())
	ctx := context.Background()
	_, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(700), Currency: stripe.String("usd"),
		Confirm: stripe.Bool(true), PaymentMethod: stripe.String("pm_card_chargeDeclinedInsufficientFunds")})
	var se *stripe.Error
	if !errors.As(err, &se) {
		t.Fatalf("decline: %v", err)
	}
	if se.HTTPStatusCode != 402 || se.Code != stripe.ErrorCodeCardDeclined || se.DeclineCode != stripe.DeclineCodeInsufficientFunds ||
		se.ChargeID == "" || se.PaymentMethod == nil || se.PaymentMethod.Card == nil || se.PaymentMethod.Card.Last4 != "9995" ||
		se.DocURL != "https://stripe.com/docs/error-codes/card-declined" || se.PaymentIntent == nil || se.RequestLogURL == "" {
		t.Fatalf("card error: %+v", se)
	}
	if se.PaymentIntent.LatestCharge == nil || se.PaymentIntent.LatestCharge.ID != se.ChargeID ||
		se.PaymentIntent.Status != stripe.PaymentIntentStatusRequiresPaymentMethod {
		t.Fatalf("the 402's intent: %+v", se.PaymentIntent)
	}
	if got := se.LastResponse.Header.Get("Stripe-Should-Retry"); got != "false" {
		t.Fatalf("Stripe-Should-Retry on a decline: %q", got)
	}
	ch, err := sc.V1Charges.Retrieve(ctx, se.ChargeID, nil)
	if err != nil || ch.Status != stripe.ChargeStatusFailed || ch.Paid || ch.FailureCode != "card_declined" ||
		ch.Outcome.NetworkStatus != "declined_by_network" || ch.Outcome.Reason != "insufficient_funds" ||
		ch.PaymentMethodDetails.Card.Brand != stripe.PaymentMethodCardBrandVisa || ch.BalanceTransaction != nil {
		t.Fatalf("failed charge: %+v %v", ch, err)
	}
	// The intent read back: its last_payment_error names the charge and
	// carries no copy of the intent.
	pi, err := sc.V1PaymentIntents.Retrieve(ctx, se.PaymentIntent.ID, nil)
	if err != nil || pi.LastPaymentError == nil || pi.LastPaymentError.DeclineCode != "insufficient_funds" ||
		pi.LastPaymentError.ChargeID != se.ChargeID || pi.LastPaymentError.PaymentIntent != nil || pi.LatestCharge.ID != se.ChargeID {
		t.Fatalf("declined intent: %+v %v", pi, err)
	}
	wantCharges(t, p, 0) // a failed charge moves no money
	_, err = sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{Charge: stripe.String(se.ChargeID)})
	var re *stripe.Error
	if !errors.As(err, &re) || re.HTTPStatusCode != 400 || re.Code != stripe.ErrorCodeChargeNotRefundable {
		t.Fatalf("refund of the failed charge: %v", err)
	}
	if len(p.Refunds()) != 0 {
		t.Fatalf("refunds: %+v", p.Refunds())
	}

	// The same intent confirmed with a good card: one charge, the new latest.
	ok, err := sc.V1PaymentIntents.Confirm(ctx, pi.ID, &stripe.PaymentIntentConfirmParams{PaymentMethod: stripe.String("pm_card_mastercard")})
	if err != nil || ok.Status != stripe.PaymentIntentStatusSucceeded || ok.LatestCharge.ID == se.ChargeID || ok.LastPaymentError != nil {
		t.Fatalf("confirm after decline: %+v %v", ok, err)
	}
	wantCharges(t, p, 1)
	var ids []string
	for c, err := range sc.V1Charges.List(ctx, &stripe.ChargeListParams{PaymentIntent: stripe.String(pi.ID)}).All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID+":"+string(c.Status))
	}
	if len(ids) != 2 || ids[0] != ok.LatestCharge.ID+":succeeded" || ids[1] != se.ChargeID+":failed" {
		t.Fatalf("charges of the intent: %v", ids)
	}

	// Events: charge.failed then payment_intent.payment_failed, each
	// verified by stripe-go's webhook package.
	var types []string
	for ev, err := range sc.V1Events.List(ctx, &stripe.EventListParams{Type: stripe.String("*failed")}).All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, string(ev.Type))
	}
	if len(types) != 0 {
		t.Fatalf("a type filter that matches no prefix matched %v", types)
	}
	for ev, err := range sc.V1Events.List(ctx, &stripe.EventListParams{Types: []*string{stripe.String("charge.failed"), stripe.String("payment_intent.payment_failed")}}).All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, string(ev.Type))
	}
	if len(types) != 2 || types[0] != "payment_intent.payment_failed" || types[1] != "charge.failed" {
		t.Fatalf("failure events, newest first: %v", types)
	}
	// payment_intent.created, charge.failed, payment_intent.payment_failed,
	// charge.succeeded, payment_intent.succeeded
	waitFor(t, "the events delivered", 5*time.Second, func() bool { return len(rcv.all()) >= 5 })
	if n := len(rcv.all()); n != 5 {
		t.Fatalf("deliveries: %d, want 5", n)
	}
	got := map[string]bool{}
	for _, r := range rcv.all() {
		ev, err := webhook.ConstructEvent(r.body, r.sig, p.WebhookSecret())
		if err != nil {
			t.Fatalf("ConstructEvent: %v", err)
		}
		got[string(ev.Type)] = true
	}
	if !got["charge.failed"] || !got["payment_intent.payment_failed"] {
		t.Fatalf("delivered: %v", got)
	}
}
