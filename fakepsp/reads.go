package fakepsp

import (
	"net/http"
	"slices"
	"strings"
)

// The reads a Stripe library makes while it processes a payment or a
// webhook (syncing the objects an event names): the account, the payment
// method, the charge's balance transaction, the customer. Each answers only
// for an object this account has or names, as Stripe does; anything else is
// the 404 Stripe gives.

// json is the account behind a secret key: a test-mode standard
// account that can take charges.
func (a *account) json() map[string]any {
	return map[string]any{
		"id": a.id, "object": "account", "type": "standard", "country": "US", "default_currency": "usd",
		"charges_enabled": true, "payouts_enabled": true, "details_submitted": true, "email": nil,
		"business_profile": map[string]any{"name": nil, "url": nil}, "capabilities": map[string]any{"card_payments": "active"},
		"metadata": map[string]string{}, "livemode": false,
	}
}

func (p *PSP) retrieveAccount(c *call) response { return ok(c.acct.json()) }

// testCard is what one of Stripe's test payment methods says of its card
// (https://docs.stripe.com/testing): the brand and last four digits.
type testCard struct{ brand, last4, funding string }

var testCards = map[string]testCard{
	"pm_card_visa": {"visa", "4242", "credit"}, "pm_card_visa_debit": {"visa", "5556", "debit"},
	"pm_card_mastercard": {"mastercard", "4444", "credit"}, "pm_card_mastercard_debit": {"mastercard", "8210", "debit"},
	"pm_card_amex": {"amex", "8431", "credit"}, "pm_card_discover": {"discover", "1117", "credit"},
	"pm_card_jcb": {"jcb", "0505", "credit"}, "pm_card_unionpay": {"unionpay", "0005", "credit"},
	"pm_card_chargeDeclined": {"visa", "0002", "credit"}, "pm_card_chargeDeclinedInsufficientFunds": {"visa", "9995", "credit"},
	"pm_card_chargeDeclinedLostCard": {"visa", "9987", "credit"}, "pm_card_chargeDeclinedStolenCard": {"visa", "9979", "credit"},
	"pm_card_chargeDeclinedExpiredCard": {"visa", "0069", "credit"}, "pm_card_chargeDeclinedIncorrectCvc": {"visa", "0127", "credit"},
	"pm_card_chargeDeclinedProcessingError": {"visa", "0119", "credit"}, "pm_card_chargeDeclinedFraudulent": {"visa", "0019", "credit"},
	"pm_card_chargeDeclinedVelocityLimitExceeded": {"visa", "6975", "credit"},
}

// retrieveMethod answers for Stripe's test payment methods and for any
// payment method an intent of this account was given (the fake keeps the id
// it was given where Stripe would have minted a pm_ of its own; its card is
// then the default test Visa).
func (p *PSP) retrieveMethod(c *call) response {
	id := c.r.PathValue("id")
	card, known := testCards[id]
	if !known {
		p.mu.Lock()
		known = slices.ContainsFunc(c.acct.intentSeq, func(pi *paymentIntent) bool { return pi.paymentMethod == id })
		p.mu.Unlock()
		card = testCard{"visa", "4242", "credit"}
	}
	if !known {
		return notFound("payment_method", "PaymentMethod", id)
	}
	return ok(map[string]any{
		"id": id, "object": "payment_method", "type": "card", "customer": nil, "livemode": false,
		"metadata": map[string]string{}, "created": int64(0),
		"billing_details": map[string]any{"address": nil, "email": nil, "name": nil, "phone": nil},
		"card": map[string]any{"brand": card.brand, "last4": card.last4, "funding": card.funding, "exp_month": 12,
			"exp_year": 2034, "country": "US", "fingerprint": "fp" + card.last4 + card.brand},
	})
}

// balanceTxnID is the balance transaction of a charge: it exists once the
// charge captured money.
func balanceTxnID(pi *paymentIntent) string {
	if pi.amountReceived == 0 || pi.latestCharge == "" {
		return ""
	}
	return "txn_" + strings.TrimPrefix(pi.latestCharge, "ch_")
}

// balanceTxnJSON is the captured amount less a fee at Stripe's standard US
// card rate (2.9% + 30 minor units), available at once in test mode.
func balanceTxnJSON(pi *paymentIntent) map[string]any {
	fee := (pi.amountReceived*29+500)/1000 + 30
	return map[string]any{
		"id": balanceTxnID(pi), "object": "balance_transaction", "amount": pi.amountReceived, "currency": pi.currency,
		"fee": fee, "net": pi.amountReceived - fee, "status": "available", "type": "charge", "reporting_category": "charge",
		"source": pi.latestCharge, "created": pi.chargeCreated, "available_on": pi.chargeCreated,
		"fee_details": []any{map[string]any{"amount": fee, "currency": pi.currency, "type": "stripe_fee", "description": "Stripe processing fees"}},
	}
}

func (p *PSP) retrieveBalanceTxn(c *call) response {
	id := c.r.PathValue("id")
	p.mu.Lock()
	defer p.mu.Unlock()
	if pi := chargeOfTxn(c.acct, id); pi != nil {
		return ok(balanceTxnJSON(pi))
	}
	return notFound("id", "balance transaction", id)
}

// chargeOfTxn is the charge whose balance transaction id is; the caller
// holds p.mu.
func chargeOfTxn(acct *account, id string) *paymentIntent {
	if pi := acct.charges["ch_"+strings.TrimPrefix(id, "txn_")]; pi != nil && balanceTxnID(pi) == id {
		return pi
	}
	return nil
}

// customer is a Customer object the account created.
type customer struct {
	id, email, name, description string
	metadata                     map[string]string
	created                      int64
}

func (cu *customer) json() map[string]any {
	return map[string]any{"id": cu.id, "object": "customer", "email": orNull(cu.email), "name": orNull(cu.name),
		"description": orNull(cu.description), "metadata": nonNil(cu.metadata), "created": cu.created, "livemode": false}
}

func (p *PSP) createCustomer(c *call) response {
	md, bad := c.params.metadata()
	if bad != nil {
		return *bad
	}
	c.begin()
	cu := &customer{id: newID("cus"), email: c.params.str("email"), name: c.params.str("name"),
		description: c.params.str("description"), metadata: md}
	p.mu.Lock()
	defer p.mu.Unlock()
	cu.created = p.nowLocked().Unix()
	c.acct.customers[cu.id] = cu
	return ok(cu.json())
}

func (p *PSP) retrieveCustomer(c *call) response {
	id := c.r.PathValue("id")
	p.mu.Lock()
	defer p.mu.Unlock()
	if cu := c.acct.customers[id]; cu != nil {
		return ok(cu.json())
	}
	return notFound("id", "customer", id)
}

// customerParam checks an intent's customer: one this account created.
func (p *PSP) customerParam(c *call) (string, *response) {
	id := c.params.str("customer")
	if id == "" {
		return "", nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if c.acct.customers[id] == nil {
		r := errResp(http.StatusBadRequest, stripeError{Type: "invalid_request_error", Code: "resource_missing", Param: "customer",
			Message: "No such customer: '" + id + "'"})
		return "", &r
	}
	return id, nil
}
