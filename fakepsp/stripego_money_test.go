package fakepsp

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"testing"

	"github.com/stripe/stripe-go/v85"
)

// A receipt and a refund's fee, read as a service reads them: the card's
// brand and last four from the charge, the refund's balance transaction
// expanded; a euro payment booked in dollars at the rate it names.
func TestStripeGoMoneyAsBooked(t *testing.T) {
	p := start(t, Config{})
	sc := stripeClient(p, p.SecretKey())
	ctx := context.Background()
	cp := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(10000), Currency: stripe.String("eur"),
		Confirm: stripe.Bool(true), PaymentMethod: stripe.String("pm_card_amex")}
	cp.AddExpand("latest_charge.balance_transaction")
	cp.AddExpand("payment_method")
	pi, err := sc.V1PaymentIntents.Create(ctx, cp)
	if err != nil {
		t.Fatal(err)
	}
	ch := pi.LatestCharge
	card := ch.PaymentMethodDetails.Card
	if card.Brand != stripe.PaymentMethodCardBrandAmex || card.Last4 != "8431" || card.Funding != stripe.CardFundingCredit ||
		card.Checks.CVCCheck != "pass" || ch.Outcome.NetworkStatus != "approved_by_network" || ch.Outcome.RiskLevel != "normal" ||
		ch.ReceiptURL == "" || ch.BillingDetails == nil || pi.PaymentMethod.Card.Last4 != "8431" {
		t.Fatalf("receipt fields: card %+v outcome %+v receipt %q pm %+v", card, ch.Outcome, ch.ReceiptURL, pi.PaymentMethod)
	}
	// 100.00 EUR at 1.08 is 108.00 USD; the fee is 2.9% + 30 cents of it.
	bt := ch.BalanceTransaction
	if bt.Currency != "usd" || bt.Amount != 10800 || bt.ExchangeRate != 1.08 || bt.Fee != 343 || bt.Net != 10800-343 ||
		bt.Type != stripe.BalanceTransactionTypeCharge || bt.Source.ID != ch.ID {
		t.Fatalf("charge's balance transaction: %+v", bt)
	}

	rp := &stripe.RefundCreateParams{PaymentIntent: stripe.String(pi.ID), Amount: stripe.Int64(2500)}
	rp.AddExpand("balance_transaction")
	rf, err := sc.V1Refunds.Create(ctx, rp)
	if err != nil {
		t.Fatal(err)
	}
	if rt := rf.BalanceTransaction; rt == nil || rt.Amount != -2700 || rt.Fee != 0 || rt.Net != -2700 || rt.ExchangeRate != 1.08 ||
		rt.Type != stripe.BalanceTransactionTypeRefund || rt.Source.ID != rf.ID {
		t.Fatalf("refund's balance transaction: %+v", rf.BalanceTransaction)
	}
	gp := &stripe.RefundRetrieveParams{}
	gp.AddExpand("balance_transaction")
	back, err := sc.V1Refunds.Retrieve(ctx, rf.ID, gp)
	if err != nil || back.BalanceTransaction.ID != rf.BalanceTransaction.ID {
		t.Fatalf("refund read back: %+v %v", back, err)
	}

	var kinds []string
	for x, err := range sc.V1BalanceTransactions.List(ctx, &stripe.BalanceTransactionListParams{}).All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, string(x.Type)+":"+strconv.FormatInt(x.Amount, 10))
	}
	if len(kinds) != 2 || kinds[0] != "refund:-2700" || kinds[1] != "charge:10800" {
		t.Fatalf("balance transactions: %v", kinds)
	}
}

// The list endpoints a service reads, with Stripe's cursors.
func TestListsPaginate(t *testing.T) {
	p := start(t, Config{})
	var ids []string // oldest first
	for i := range 5 {
		cu := form(t, p, "/v1/customers", "", url.Values{"email": {"c" + strconv.Itoa(i) + "@example.com"}})
		wantStatus(t, "customer", cu, 200)
		ids = append(ids, cu.str("id"))
	}
	page := func(q string) (got []string, more bool) {
		a := get(t, p, "/v1/customers?"+q)
		wantStatus(t, q, a, 200)
		for _, x := range a.body["data"].([]any) {
			got = append(got, x.(map[string]any)["id"].(string))
		}
		return got, a.body["has_more"].(bool)
	}
	for _, tc := range []struct {
		q    string
		want []string
		more bool
	}{
		{"limit=2", []string{ids[4], ids[3]}, true},
		{"limit=2&starting_after=" + ids[3], []string{ids[2], ids[1]}, true},
		{"limit=2&starting_after=" + ids[1], []string{ids[0]}, false},
		{"limit=2&ending_before=" + ids[1], []string{ids[3], ids[2]}, true},
		{"limit=2&ending_before=" + ids[3], []string{ids[4]}, false},
		{"email=c2@example.com", []string{ids[2]}, false},
	} {
		got, more := page(tc.q)
		if !slices.Equal(got, tc.want) || more != tc.more {
			t.Errorf("%s: %v has_more %v, want %v %v", tc.q, got, more, tc.want, tc.more)
		}
	}
	both := get(t, p, "/v1/customers?starting_after="+ids[1]+"&ending_before="+ids[3])
	wantStatus(t, "both cursors", both, 400)

	form(t, p, "/v1/payment_intents", "", payment("100", "pm_card_visa", "a"))
	form(t, p, "/v1/payment_intents", "", payment("100", "pm_card_mastercard", "b"))
	ms := get(t, p, "/v1/payment_methods?type=card")
	if d := ms.body["data"].([]any); len(d) != 2 || d[0].(map[string]any)["id"] != "pm_card_mastercard" {
		t.Fatalf("payment methods: %s", ms.raw)
	}
}

// Stripe-Should-Retry as stripe-go reads it: true on a key still in use
// (409), false on an answer a retry only repeats.
func TestShouldRetryHeader(t *testing.T) {
	for status, want := range map[int]string{409: "true", 400: "false", 402: "false", 404: "false", 401: "false", 429: "", 500: "", 200: ""} {
		if got := shouldRetry(status); got != want {
			t.Errorf("%d: %q, want %q", status, got, want)
		}
	}
	p := start(t, Config{})
	a := get(t, p, "/v1/payment_intents/pi_nope")
	if a.status != 404 || a.header.Get("Stripe-Should-Retry") != "false" {
		t.Fatalf("404: %d %q", a.status, a.header.Get("Stripe-Should-Retry"))
	}
}
