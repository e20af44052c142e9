package fakepsp

import (
	"context"
	"errors"
	"testing"

	"github.com/stripe/stripe-go/v85"
)

// wantStripeErr fails unless err is a *stripe.Error with this status, type
// and code (code "" = no code), and returns it.
func wantStripeErr(t *testing.T, what string, err error, status int, typ stripe.ErrorType, code stripe.ErrorCode) *stripe.Error {
	t.Helper()
	var se *stripe.Error
	if !errors.As(err, &se) || se.HTTPStatusCode != status || se.Type != typ || se.Code != code {
		t.Fatalf("%s: got %v, want %d %s %q", what, err, status, typ, code)
	}
	return se
}

func replayed(r *stripe.APIResponse) bool { return r.Header.Get("Idempotent-Replayed") == "true" }

// authorize creates and confirms a manual-capture PaymentIntent under key.
func authorize(t *testing.T, sc *stripe.Client, key string, amount int64, paymentID string) *stripe.PaymentIntent {
	t.Helper()
	cp := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(amount), Currency: stripe.String("usd"), Confirm: stripe.Bool(true),
		PaymentMethod: stripe.String("pm_card_visa"), CaptureMethod: stripe.String("manual"),
		Metadata: map[string]string{"payment_id": paymentID, "intent": "/pay:phone-1:" + paymentID}}
	cp.SetIdempotencyKey(key)
	pi, err := sc.V1PaymentIntents.Create(context.Background(), cp)
	if err != nil {
		t.Fatalf("authorize %s: %v", key, err)
	}
	return pi
}

// Authorize, capture part, refund all of it in two steps: every step
// repeated with its key is replayed, money moves once per step, and the
// ground truth has one charge (at capture, of the captured amount).
func TestStripeGoAuthorizeCaptureRefund(t *testing.T) {
	p := start(t, Config{})
	sc := stripeClient(p, p.SecretKey())
	ctx := context.Background()

	auth := authorize(t, sc, "pay_m:authorize", 5000, "pay_m")
	if auth.Status != stripe.PaymentIntentStatusRequiresCapture || auth.AmountCapturable != 5000 || auth.AmountReceived != 0 ||
		auth.CaptureMethod != stripe.PaymentIntentCaptureMethodManual || auth.LatestCharge == nil || auth.LatestCharge.ID == "" {
		t.Fatalf("authorized: %s capturable %d received %d charge %+v", auth.Status, auth.AmountCapturable, auth.AmountReceived, auth.LatestCharge)
	}
	again := authorize(t, sc, "pay_m:authorize", 5000, "pay_m")
	if !replayed(again.LastResponse) || again.ID != auth.ID {
		t.Fatalf("authorize repeat: replayed=%v id %s", replayed(again.LastResponse), again.ID)
	}
	wantCharges(t, p, 0) // an authorization moves no money
	if ch, err := sc.V1Charges.Retrieve(ctx, auth.LatestCharge.ID, nil); err != nil || ch.Captured || ch.AmountCaptured != 0 {
		t.Fatalf("charge before capture: %+v %v", ch, err)
	}

	capture := func(key string, amount int64) (*stripe.PaymentIntent, error) {
		cp := &stripe.PaymentIntentCaptureParams{AmountToCapture: stripe.Int64(amount)}
		cp.SetIdempotencyKey(key)
		return sc.V1PaymentIntents.Capture(ctx, auth.ID, cp)
	}
	got, err := capture("pay_m:capture", 4000)
	if err != nil || got.Status != stripe.PaymentIntentStatusSucceeded || got.AmountReceived != 4000 || got.AmountCapturable != 0 || replayed(got.LastResponse) {
		t.Fatalf("capture: %+v %v", got, err)
	}
	wantCharges(t, p, 1)
	op := p.Charges()[0]
	if *op.Input.Amount != 4000 || op.Input.PSPKey != "pay_m:capture" || op.Output.ChargeID != auth.LatestCharge.ID || op.PaymentID != "pay_m" || op.Intent != "/pay:phone-1:pay_m" {
		t.Fatalf("ground truth of the capture: %+v", op)
	}
	rep, err := capture("pay_m:capture", 4000)
	if err != nil || !replayed(rep.LastResponse) || rep.AmountReceived != 4000 {
		t.Fatalf("capture repeat: %+v %v", rep, err)
	}
	_, err = capture("pay_m:capture", 3000)
	wantStripeErr(t, "same capture key, other amount", err, 400, stripe.ErrorTypeIdempotency, "")
	_, err = capture("pay_m:capture-2", 1000)
	se := wantStripeErr(t, "second capture", err, 400, stripe.ErrorTypeInvalidRequest, stripe.ErrorCodePaymentIntentUnexpectedState)
	if se.Msg != "This PaymentIntent could not be captured because it has already been captured." {
		t.Fatalf("second capture message: %q", se.Msg)
	}
	wantCharges(t, p, 1)

	refund := func(key string, amount int64) (*stripe.Refund, error) {
		rp := &stripe.RefundCreateParams{PaymentIntent: stripe.String(auth.ID)}
		if amount > 0 {
			rp.Amount = stripe.Int64(amount)
		}
		rp.SetIdempotencyKey(key)
		return sc.V1Refunds.Create(ctx, rp)
	}
	_, err = refund("pay_m:refund-over", 4001)
	wantStripeErr(t, "refund above the captured amount", err, 400, stripe.ErrorTypeInvalidRequest, stripe.ErrorCodeAmountTooLarge)
	r1, err := refund("pay_m:refund", 2500)
	if err != nil || r1.Amount != 2500 {
		t.Fatalf("refund: %+v %v", r1, err)
	}
	r1again, err := refund("pay_m:refund", 2500)
	if err != nil || !replayed(r1again.LastResponse) || r1again.ID != r1.ID {
		t.Fatalf("refund repeat: %+v %v", r1again, err)
	}
	rest, err := refund("pay_m:refund-rest", 0)
	if err != nil || rest.Amount != 1500 {
		t.Fatalf("refund of the rest: %+v %v", rest, err)
	}
	refunds := p.Refunds()
	if len(refunds) != 2 || *refunds[0].Input.Amount != 2500 || *refunds[1].Input.Amount != 1500 || refunds[0].Input.ChargeID != auth.LatestCharge.ID {
		t.Fatalf("ground truth refunds: %+v", refunds)
	}
	ch, err := sc.V1Charges.Retrieve(ctx, auth.LatestCharge.ID, nil)
	// 1000 never captured plus 4000 refunded: the whole 5000 is back.
	if err != nil || !ch.Captured || ch.AmountCaptured != 4000 || ch.AmountRefunded != 5000 || !ch.Refunded {
		t.Fatalf("charge at the end: captured=%v %d refunded %d %v %v", ch.Captured, ch.AmountCaptured, ch.AmountRefunded, ch.Refunded, err)
	}
	wantCharges(t, p, 1)

	// Capturing more than was authorized is refused, and moves nothing.
	small := authorize(t, sc, "pay_s:authorize", 1000, "pay_s")
	cp := &stripe.PaymentIntentCaptureParams{AmountToCapture: stripe.Int64(1001)}
	_, err = sc.V1PaymentIntents.Capture(ctx, small.ID, cp)
	if se := wantStripeErr(t, "over-capture", err, 400, stripe.ErrorTypeInvalidRequest, stripe.ErrorCodeAmountTooLarge); se.Param != "amount_to_capture" {
		t.Fatalf("over-capture param %q", se.Param)
	}
	full, err := sc.V1PaymentIntents.Capture(ctx, small.ID, nil) // no amount: all that is capturable
	if err != nil || full.AmountReceived != 1000 {
		t.Fatalf("full capture: %+v %v", full, err)
	}
	wantCharges(t, p, 2)
}

func TestStripeGoCancel(t *testing.T) {
	p := start(t, Config{})
	sc := stripeClient(p, p.SecretKey())
	ctx := context.Background()
	auth := authorize(t, sc, "pay_c:authorize", 700, "pay_c")
	cancel := func(key, reason string) (*stripe.PaymentIntent, error) {
		cp := &stripe.PaymentIntentCancelParams{CancellationReason: stripe.String(reason)}
		cp.SetIdempotencyKey(key)
		return sc.V1PaymentIntents.Cancel(ctx, auth.ID, cp)
	}
	got, err := cancel("pay_c:cancel", "requested_by_customer")
	if err != nil || got.Status != stripe.PaymentIntentStatusCanceled || got.CancellationReason != "requested_by_customer" || got.CanceledAt == 0 || got.AmountCapturable != 0 {
		t.Fatalf("cancel: %+v %v", got, err)
	}
	rep, err := cancel("pay_c:cancel", "requested_by_customer")
	if err != nil || !replayed(rep.LastResponse) || rep.Status != stripe.PaymentIntentStatusCanceled {
		t.Fatalf("cancel repeat: %+v %v", rep, err)
	}
	_, err = cancel("pay_c:cancel", "duplicate")
	wantStripeErr(t, "same cancel key, other reason", err, 400, stripe.ErrorTypeIdempotency, "")
	_, err = cancel("pay_c:cancel-2", "duplicate")
	wantStripeErr(t, "second cancel", err, 400, stripe.ErrorTypeInvalidRequest, stripe.ErrorCodePaymentIntentUnexpectedState)
	_, err = sc.V1PaymentIntents.Capture(ctx, auth.ID, nil)
	se := wantStripeErr(t, "capture after cancel", err, 400, stripe.ErrorTypeInvalidRequest, stripe.ErrorCodePaymentIntentUnexpectedState)
	if se.Msg != "This PaymentIntent could not be captured because it has a status of canceled. Only a PaymentIntent with one of the following statuses may be captured: requires_capture." {
		t.Fatalf("capture after cancel: %q", se.Msg)
	}
	wantCharges(t, p, 0) // the authorization was released: no money moved
	if ch, err := sc.V1Charges.Retrieve(ctx, auth.LatestCharge.ID, nil); err != nil || ch.Captured || !ch.Refunded || ch.AmountRefunded != 700 {
		t.Fatalf("released charge: %+v %v", ch, err)
	}
	if n := len(p.Refunds()); n != 0 {
		t.Fatalf("a release is not a refund: %d refund ops", n)
	}

	// A captured-at-once payment cannot be canceled.
	paid, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(100), Currency: stripe.String("usd"),
		Confirm: stripe.Bool(true), PaymentMethod: stripe.String("pm_card_visa")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = sc.V1PaymentIntents.Cancel(ctx, paid.ID, nil)
	wantStripeErr(t, "cancel of a succeeded payment", err, 400, stripe.ErrorTypeInvalidRequest, stripe.ErrorCodePaymentIntentUnexpectedState)
	wantCharges(t, p, 1)
}

func TestStripeGoUpdate(t *testing.T) {
	p := start(t, Config{})
	sc := stripeClient(p, p.SecretKey())
	ctx := context.Background()
	pi, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(1000), Currency: stripe.String("usd"),
		Metadata: map[string]string{"payment_id": "pay_u", "stale": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	update := func(key string, amount int64) (*stripe.PaymentIntent, error) {
		up := &stripe.PaymentIntentUpdateParams{Amount: stripe.Int64(amount), CaptureMethod: stripe.String("manual"),
			Metadata: map[string]string{"order": "7", "stale": ""}}
		up.SetIdempotencyKey(key)
		return sc.V1PaymentIntents.Update(ctx, pi.ID, up)
	}
	got, err := update("pay_u:update", 1200)
	if err != nil || got.Amount != 1200 || got.CaptureMethod != stripe.PaymentIntentCaptureMethodManual ||
		got.Metadata["order"] != "7" || got.Metadata["payment_id"] != "pay_u" || got.Metadata["stale"] != "" || len(got.Metadata) != 2 {
		t.Fatalf("update: %+v %v", got, err)
	}
	rep, err := update("pay_u:update", 1200)
	if err != nil || !replayed(rep.LastResponse) || rep.Amount != 1200 {
		t.Fatalf("update repeat: %+v %v", rep, err)
	}
	_, err = update("pay_u:update", 1300)
	wantStripeErr(t, "same update key, other amount", err, 400, stripe.ErrorTypeIdempotency, "")

	cp := &stripe.PaymentIntentConfirmParams{PaymentMethod: stripe.String("pm_card_visa")}
	auth, err := sc.V1PaymentIntents.Confirm(ctx, pi.ID, cp)
	if err != nil || auth.Status != stripe.PaymentIntentStatusRequiresCapture || auth.AmountCapturable != 1200 {
		t.Fatalf("confirm after update: %+v %v", auth, err)
	}
	_, err = update("pay_u:update-late", 1500)
	if se := wantStripeErr(t, "amount update of an authorized payment", err, 400, stripe.ErrorTypeInvalidRequest, stripe.ErrorCodePaymentIntentUnexpectedState); se.Param != "amount" {
		t.Fatalf("late update param %q", se.Param)
	}
	if _, err := sc.V1PaymentIntents.Capture(ctx, pi.ID, nil); err != nil {
		t.Fatal(err)
	}
	// Metadata can change in any status, and moves no money.
	md, err := sc.V1PaymentIntents.Update(ctx, pi.ID, &stripe.PaymentIntentUpdateParams{Metadata: map[string]string{"note": "shipped"}})
	if err != nil || md.Metadata["note"] != "shipped" || md.Status != stripe.PaymentIntentStatusSucceeded {
		t.Fatalf("metadata update after capture: %+v %v", md, err)
	}
	wantCharges(t, p, 1)
	if op := p.Charges()[0]; *op.Input.Amount != 1200 || op.Input.Metadata["order"] != "7" {
		t.Fatalf("charge op after update: %+v", op)
	}
}
