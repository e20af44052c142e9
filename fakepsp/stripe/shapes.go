package stripe

// Every object carries every field Stripe sends for it, null where it has
// nothing: Stripe's libraries read fields by name (stripe-python raises
// AttributeError on an absent one, stripe-go leaves a nil a caller then
// dereferences). The lists below are the fields of API version APIVersion
// that fakepsp has no value for; fakepsp's shapes_test.go holds them against
// stripe-go's structs, so a stripe-go upgrade names every new field.

var (
	IntentNulls = []string{"amount_details", "application", "application_fee_amount", "automatic_payment_methods",
		"customer_account", "excluded_payment_method_types", "hooks", "next_action", "on_behalf_of", "payment_details",
		"payment_method_configuration_details", "presentment_details", "processing", "receipt_email", "review",
		"setup_future_usage", "shipping", "source", "statement_descriptor", "statement_descriptor_suffix",
		"transfer_data", "transfer_group"}
	ChargeNulls = []string{"application", "application_fee", "application_fee_amount", "authorization_code",
		"description", "failure_balance_transaction", "level3", "on_behalf_of", "presentment_details", "radar_options",
		"receipt_email", "receipt_number", "review", "shipping", "source", "source_transfer", "statement_descriptor",
		"statement_descriptor_suffix", "transfer", "transfer_data", "transfer_group"}
	RefundNulls = []string{"description", "failure_balance_transaction", "failure_reason", "instructions_email",
		"next_action", "pending_reason", "presentment_details", "receipt_number", "source_transfer_reversal", "transfer_reversal"}
	CustomerNulls = []string{"address", "business_name", "currency", "customer_account", "default_source",
		"discount", "individual_name", "phone", "shipping", "test_clock"}
	methodNulls   = []string{"customer", "customer_account", "radar_options"}
	TxnNulls      = []string{"description", "exchange_rate"}
	EndpointNulls = []string{"application", "description"}
	// card details a card payment has no value for
	cardDetailNulls = []string{"authorization_code", "capture_before", "installments", "mandate", "moto",
		"three_d_secure", "wallet", "description", "iin", "issuer"}
	methodCardNulls = []string{"generated_from", "wallet", "description", "iin", "issuer"}
	outcomeNulls    = []string{"advice_code", "network_advice_code", "network_decline_code", "reason", "rule"}
)

// Fill sets every key of nulls that m lacks to null, and returns m.
func Fill(m map[string]any, nulls []string) map[string]any {
	for _, k := range nulls {
		if _, ok := m[k]; !ok {
			m[k] = nil
		}
	}
	return m
}

// BillingDetails is what a test card carries: no billing details given.
func BillingDetails() map[string]any {
	return map[string]any{"email": nil, "name": nil, "phone": nil, "tax_id": nil,
		"address": map[string]any{"city": nil, "country": nil, "line1": nil, "line2": nil, "postal_code": nil, "state": nil}}
}

// cardOf is the test card behind a payment method id (cards.go).
func cardOf(pm string) testCard {
	if c, ok := testCards[pm]; ok {
		return c
	}
	return testCard{"visa", "4242", "credit"}
}

func (tc testCard) fingerprint() string { return "fp" + tc.last4 + tc.brand }

// cardChecks: a test card's CVC passes; no address was given to check.
func cardChecks() map[string]any {
	return map[string]any{"address_line1_check": nil, "address_postal_code_check": nil, "cvc_check": "pass"}
}

// PaymentMethodDetails is a charge's card as Stripe reports it: what a
// receipt prints (brand, last4) and the network's side of the authorization.
func PaymentMethodDetails(pm string, authorized int64, chargeID string) map[string]any {
	tc := cardOf(pm)
	var auth any
	if authorized > 0 {
		auth = authorized
	}
	card := Fill(map[string]any{
		"amount_authorized": auth, "brand": tc.brand, "checks": cardChecks(), "country": "US",
		"exp_month": 12, "exp_year": 2034, "fingerprint": tc.fingerprint(), "funding": tc.funding, "last4": tc.last4,
		"network": tc.brand, "network_transaction_id": "NTI" + chargeID[len(chargeID)-6:], "regulated_status": "unregulated",
		"extended_authorization":    map[string]any{"status": "disabled"},
		"incremental_authorization": map[string]any{"status": "unavailable"},
		"multicapture":              map[string]any{"status": "unavailable"},
		"network_token":             map[string]any{"used": false},
		"overcapture":               map[string]any{"maximum_amount_capturable": authorized, "status": "unavailable"},
	}, cardDetailNulls)
	return map[string]any{"type": "card", "card": card}
}

// Outcome is the network's answer: authorized, or declined with the
// decline's reason (https://docs.stripe.com/declines#issuer-declines).
func Outcome(d *Decline) map[string]any {
	o := map[string]any{"network_status": "approved_by_network", "risk_level": "normal", "risk_score": 32,
		"seller_message": "Payment complete.", "type": "authorized"}
	if d != nil {
		o["network_status"], o["reason"], o["type"] = "declined_by_network", d.DeclineCode, "issuer_declined"
		o["seller_message"] = "The bank did not return any further details with this decline."
		if d.DeclineCode == "fraudulent" {
			o["risk_level"], o["risk_score"] = "highest", 95
		}
	}
	return Fill(o, outcomeNulls)
}

// methodCard is a PaymentMethod's card.
func methodCard(pm string) map[string]any {
	tc := cardOf(pm)
	return Fill(map[string]any{"brand": tc.brand, "checks": cardChecks(), "country": "US", "display_brand": tc.brand,
		"exp_month": 12, "exp_year": 2034, "fingerprint": tc.fingerprint(), "funding": tc.funding, "last4": tc.last4,
		"networks": map[string]any{"available": []string{tc.brand}, "preferred": nil}, "regulated_status": "unregulated",
		"three_d_secure_usage": map[string]any{"supported": true}}, methodCardNulls)
}

// MethodJSON is a card PaymentMethod.
func MethodJSON(id string) map[string]any {
	return Fill(map[string]any{
		"id": id, "object": "payment_method", "type": "card", "livemode": false, "allow_redisplay": "unspecified",
		"metadata": map[string]string{}, "created": int64(0), "billing_details": BillingDetails(), "card": methodCard(id),
	}, methodNulls)
}
