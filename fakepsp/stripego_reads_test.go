package fakepsp

import (
	"context"
	"testing"

	"github.com/stripe/stripe-go/v85"
)

// TestStripeGoReadsWhatItSyncs: the reads a Stripe library makes while it
// handles a payment's webhook (the account, the payment method, the charge
// with its balance transaction, the customer) answer through stripe-go with
// the objects the account has, and 404 or 400 for one it does not.
func TestStripeGoReadsWhatItSyncs(t *testing.T) {
	p := start(t, Config{})
	sc := stripeClient(p, p.SecretKey())
	ctx := context.Background()

	acct, err := sc.V1Accounts.Retrieve(ctx, nil)
	if err != nil || acct.ID == "" || !acct.ChargesEnabled || acct.Object != "account" {
		t.Fatalf("account: %+v %v", acct, err)
	}
	cu, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Email: stripe.String("buyer@example.com")})
	if err != nil || cu.Email != "buyer@example.com" {
		t.Fatalf("customer: %+v %v", cu, err)
	}
	if got, err := sc.V1Customers.Retrieve(ctx, cu.ID, nil); err != nil || got.ID != cu.ID || got.Email != cu.Email {
		t.Fatalf("retrieve customer: %+v %v", got, err)
	}
	cp := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(10000), Currency: stripe.String("usd"), Confirm: stripe.Bool(true),
		PaymentMethod: stripe.String("pm_card_mastercard"), Customer: stripe.String(cu.ID)}
	cp.AddExpand("latest_charge.balance_transaction")
	cp.AddExpand("customer")
	pi, err := sc.V1PaymentIntents.Create(ctx, cp)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if pi.Customer == nil || pi.Customer.Email != "buyer@example.com" {
		t.Fatalf("expanded customer: %+v", pi.Customer)
	}
	bt := pi.LatestCharge.BalanceTransaction
	// 2.9% of 10000 is 290, plus 30.
	if bt == nil || bt.Amount != 10000 || bt.Fee != 320 || bt.Net != 9680 || bt.Source.ID != pi.LatestCharge.ID {
		t.Fatalf("balance transaction through latest_charge: %+v", bt)
	}
	chp := &stripe.ChargeRetrieveParams{}
	chp.AddExpand("balance_transaction")
	ch, err := sc.V1Charges.Retrieve(ctx, pi.LatestCharge.ID, chp)
	if err != nil || ch.BalanceTransaction == nil || ch.BalanceTransaction.ID != bt.ID || ch.Customer.ID != cu.ID {
		t.Fatalf("charge with its balance transaction: %+v %v", ch, err)
	}
	if got, err := sc.V1BalanceTransactions.Retrieve(ctx, bt.ID, nil); err != nil || got.Net != 9680 {
		t.Fatalf("balance transaction: %+v %v", got, err)
	}
	pm, err := sc.V1PaymentMethods.Retrieve(ctx, "pm_card_mastercard", nil)
	if err != nil || pm.Card == nil || pm.Card.Last4 != "4444" || pm.Card.Brand != "mastercard" {
		t.Fatalf("payment method: %+v %v", pm, err)
	}

	// Authorized, not captured: no money moved, no balance transaction.
	auth, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(500), Currency: stripe.String("usd"),
		Confirm: stripe.Bool(true), PaymentMethod: stripe.String("pm_card_visa"), CaptureMethod: stripe.String("manual")})
	if err != nil {
		t.Fatalf("authorize: %v", err)
	}
	if ch, err := sc.V1Charges.Retrieve(ctx, auth.LatestCharge.ID, chp); err != nil || ch.BalanceTransaction != nil {
		t.Fatalf("an uncaptured charge has no balance transaction: %+v %v", ch, err)
	}

	_, err = sc.V1PaymentMethods.Retrieve(ctx, "pm_never_given", nil)
	wantStripeErr(t, "unknown payment method", err, 404, stripe.ErrorTypeInvalidRequest, stripe.ErrorCodeResourceMissing)
	_, err = sc.V1Customers.Retrieve(ctx, "cus_nobody", nil)
	wantStripeErr(t, "unknown customer", err, 404, stripe.ErrorTypeInvalidRequest, stripe.ErrorCodeResourceMissing)
	_, err = sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(500), Currency: stripe.String("usd"),
		Customer: stripe.String("cus_nobody")})
	if se := wantStripeErr(t, "intent for an unknown customer", err, 400, stripe.ErrorTypeInvalidRequest, stripe.ErrorCodeResourceMissing); se.Param != "customer" {
		t.Fatalf("unknown customer names param %q", se.Param)
	}
}
