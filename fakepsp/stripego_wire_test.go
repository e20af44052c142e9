package fakepsp

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"
)

// A parameter Stripe does not take is refused as Stripe refuses it, at any
// depth and on any endpoint; nothing runs and nothing is saved under the key.
func TestStripeGoUnknownParameter(t *testing.T) {
	p := start(t, Config{})
	sc := stripeClient(p, p.SecretKey())
	ctx := context.Background()
	create := func(extra map[string]string) (*stripe.PaymentIntent, error) {
		cp := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(900), Currency: stripe.String("usd"), Confirm: stripe.Bool(true),
			PaymentMethod: stripe.String("pm_card_visa"), Metadata: map[string]string{"payment_id": "pay_x"}}
		for k, v := range extra {
			cp.AddExtra(k, v)
		}
		cp.SetIdempotencyKey("pay_x:charge")
		return sc.V1PaymentIntents.Create(ctx, cp)
	}
	for _, bad := range []string{"amount_cents", "payment_method_options[card][bogus]", "shipping[address][planet]"} {
		_, err := create(map[string]string{bad: "1"})
		se := wantStripeErr(t, bad, err, 400, stripe.ErrorTypeInvalidRequest, stripe.ErrorCodeParameterUnknown)
		if se.Param != bad || se.Msg != "Received unknown parameter: "+bad || se.DocURL != "https://stripe.com/docs/error-codes/parameter-unknown" {
			t.Fatalf("%s: param %q message %q doc %q", bad, se.Param, se.Msg, se.DocURL)
		}
	}
	_, err := create(map[string]string{"zeta": "1", "alpha": "2"})
	if se := wantStripeErr(t, "two unknown", err, 400, stripe.ErrorTypeInvalidRequest, stripe.ErrorCodeParameterUnknown); se.Msg != "Received unknown parameters: alpha, zeta" || se.Param != "alpha" {
		t.Fatalf("two unknown: %q %q", se.Msg, se.Param)
	}
	wantCharges(t, p, 0)
	// Parameters Stripe takes but the fake does not model are accepted.
	pi, err := create(map[string]string{"receipt_email": "a@example.com", "payment_method_options[card][request_three_d_secure]": "automatic"})
	if err != nil || pi.Status != stripe.PaymentIntentStatusSucceeded || replayed(pi.LastResponse) {
		t.Fatalf("known parameters after refused ones (same key, nothing saved): %+v %v", pi, err)
	}
	wantCharges(t, p, 1)

	// A capture takes amount_to_capture, not amount: a classic client bug.
	auth := authorize(t, sc, "pay_y:authorize", 500, "pay_y")
	cp := &stripe.PaymentIntentCaptureParams{}
	cp.AddExtra("amount", "500")
	_, err = sc.V1PaymentIntents.Capture(ctx, auth.ID, cp)
	if se := wantStripeErr(t, "capture with amount", err, 400, stripe.ErrorTypeInvalidRequest, stripe.ErrorCodeParameterUnknown); se.Param != "amount" {
		t.Fatalf("capture with amount: param %q", se.Param)
	}
	// Query strings too.
	rp := &stripe.PaymentIntentRetrieveParams{}
	rp.AddExtra("include", "charges")
	_, err = sc.V1PaymentIntents.Retrieve(ctx, pi.ID, rp)
	wantStripeErr(t, "retrieve with an unknown query parameter", err, 400, stripe.ErrorTypeInvalidRequest, stripe.ErrorCodeParameterUnknown)
	wantCharges(t, p, 1)
}

func TestStripeGoExpandLatestCharge(t *testing.T) {
	p := start(t, Config{})
	sc := stripeClient(p, p.SecretKey())
	ctx := context.Background()
	cp := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(3000), Currency: stripe.String("eur"), Confirm: stripe.Bool(true),
		PaymentMethod: stripe.String("pm_card_visa")}
	cp.AddExpand("latest_charge")
	pi, err := sc.V1PaymentIntents.Create(ctx, cp)
	if err != nil || pi.LatestCharge == nil || pi.LatestCharge.Amount != 3000 || pi.LatestCharge.PaymentIntent == nil || pi.LatestCharge.PaymentIntent.ID != pi.ID || !pi.LatestCharge.Paid {
		t.Fatalf("create with expand: %+v %v", pi.LatestCharge, err)
	}
	plain, err := sc.V1PaymentIntents.Retrieve(ctx, pi.ID, nil)
	if err != nil || plain.LatestCharge.ID != pi.LatestCharge.ID || plain.LatestCharge.Amount != 0 {
		t.Fatalf("retrieve without expand must give the id only: %+v %v", plain.LatestCharge, err)
	}
	rp := &stripe.PaymentIntentRetrieveParams{}
	rp.AddExpand("latest_charge")
	full, err := sc.V1PaymentIntents.Retrieve(ctx, pi.ID, rp)
	if err != nil || full.LatestCharge.Amount != 3000 || full.LatestCharge.Currency != "eur" {
		t.Fatalf("retrieve with expand: %+v %v", full.LatestCharge, err)
	}
	lp := &stripe.PaymentIntentListParams{}
	lp.AddExpand("data.latest_charge")
	for x, err := range sc.V1PaymentIntents.List(ctx, lp).All(ctx) {
		if err != nil || x.LatestCharge.Amount != 3000 {
			t.Fatalf("list with expand: %+v %v", x, err)
		}
	}
	bad := &stripe.PaymentIntentRetrieveParams{}
	bad.AddExpand("amount")
	_, err = sc.V1PaymentIntents.Retrieve(ctx, pi.ID, bad)
	if se := wantStripeErr(t, "expand amount", err, 400, stripe.ErrorTypeInvalidRequest, ""); se.Msg != "This property cannot be expanded (amount)." {
		t.Fatalf("expand amount: %q", se.Msg)
	}
	notInList := &stripe.PaymentIntentListParams{}
	notInList.AddExpand("latest_charge")
	for _, err := range sc.V1PaymentIntents.List(ctx, notInList).All(ctx) {
		if se := wantStripeErr(t, "expand on a list", err, 400, stripe.ErrorTypeInvalidRequest, ""); se.Msg != "This property cannot be expanded (latest_charge). You may want to try expanding 'data.latest_charge' instead." {
			t.Fatalf("expand on a list: %q", se.Msg)
		}
		break
	}
}

func TestStripeGoListRefunds(t *testing.T) {
	p := start(t, Config{})
	sc := stripeClient(p, p.SecretKey())
	ctx := context.Background()
	pay := func(amount int64) *stripe.PaymentIntent {
		pi, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(amount), Currency: stripe.String("usd"),
			Confirm: stripe.Bool(true), PaymentMethod: stripe.String("pm_card_visa")})
		if err != nil {
			t.Fatal(err)
		}
		return pi
	}
	a, b := pay(1000), pay(2000)
	var made []string
	for _, r := range []struct {
		pi     string
		amount int64
	}{{a.ID, 100}, {b.ID, 200}, {a.ID, 300}} {
		rf, err := sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String(r.pi), Amount: stripe.Int64(r.amount)})
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, rf.ID)
	}
	list := func(lp *stripe.RefundListParams) []string {
		var ids []string
		for rf, err := range sc.V1Refunds.List(ctx, lp).All(ctx) {
			if err != nil {
				t.Fatalf("list refunds: %v", err)
			}
			ids = append(ids, rf.ID)
		}
		return ids
	}
	if got, want := list(&stripe.RefundListParams{PaymentIntent: stripe.String(a.ID)}), []string{made[2], made[0]}; !slices.Equal(got, want) {
		t.Fatalf("refunds of a: %v, want %v (newest first)", got, want)
	}
	if got, want := list(&stripe.RefundListParams{Charge: stripe.String(b.LatestCharge.ID)}), []string{made[1]}; !slices.Equal(got, want) {
		t.Fatalf("refunds of b's charge: %v, want %v", got, want)
	}
	small := &stripe.RefundListParams{}
	small.Limit = stripe.Int64(1) // pages of one: the iterator follows starting_after
	if got, want := list(small), []string{made[2], made[1], made[0]}; !slices.Equal(got, want) {
		t.Fatalf("all refunds: %v, want %v", got, want)
	}
}

// The events of authorize, capture and refund, each delivered signed so that
// stripe-go's webhook.ConstructEvent accepts it, in the order they happened.
func TestStripeGoEventsOfCaptureAndRefund(t *testing.T) {
	p := start(t, Config{})
	rcv := newReceiver(t)
	sc := stripeClient(p, p.SecretKey())
	ctx := context.Background()
	if _, err := p.RegisterWebhook(rcv.server.URL); err != nil {
		t.Fatal(err)
	}
	auth := authorize(t, sc, "pay_e:authorize", 800, "pay_e")
	if _, err := sc.V1PaymentIntents.Capture(ctx, auth.ID, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String(auth.ID)}); err != nil {
		t.Fatal(err)
	}
	want := []string{"payment_intent.created", "charge.succeeded", "payment_intent.amount_capturable_updated",
		"charge.captured", "payment_intent.succeeded", "charge.refunded", "refund.created"}
	waitFor(t, "every event delivered", 5*time.Second, func() bool { return len(rcv.all()) == len(want) })
	var got []string
	objects := map[string]string{}
	for _, r := range rcv.all() {
		ev, err := webhook.ConstructEvent(r.body, r.sig, p.WebhookSecret())
		if err != nil {
			t.Fatalf("ConstructEvent: %v", err)
		}
		got = append(got, string(ev.Type))
		objects[string(ev.Type)], _ = ev.Data.Object["object"].(string)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("delivered %v, want %v", got, want)
	}
	if objects["payment_intent.created"] != "payment_intent" || objects["charge.succeeded"] != "charge" || objects["refund.created"] != "refund" {
		t.Fatalf("event objects: %v", objects)
	}
	var listed []string
	for ev, err := range sc.V1Events.List(ctx, &stripe.EventListParams{Types: stripe.StringSlice([]string{"refund.created", "charge.succeeded"})}).All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, string(ev.Type))
	}
	if !slices.Equal(listed, []string{"refund.created", "charge.succeeded"}) {
		t.Fatalf("events listed by type: %v", listed)
	}
}

// Raw requests: a GET with an unknown query parameter and a form POST to
// an endpoint that takes no parameters at all.
func TestUnknownParameterRaw(t *testing.T) {
	p := start(t, Config{})
	a := get(t, p, "/v1/refunds?payment_intnet=pi_1")
	if a.status != http.StatusBadRequest || a.errCode() != "parameter_unknown" || a.errField("param") != "payment_intnet" {
		t.Fatalf("typo in a list filter: %d %s", a.status, a.raw)
	}
	b := form(t, p, "/v1/payment_intents", "k", url.Values{"amount": {"100"}, "currency": {"usd"}, "metadata": {""}, "metadata[a]": {"b"}, "expand[]": {"latest_charge"}})
	wantStatus(t, "metadata= and expand[] are known", b, 200)
	c := form(t, p, "/v1/payment_intents", "k2", url.Values{"amount": {"100"}, "currency": {"usd"}, "amount[x]": {"1"}})
	if c.status != http.StatusBadRequest || c.errField("param") != "amount[x]" {
		t.Fatalf("a scalar given a sub-key: %d %s", c.status, c.raw)
	}
}
