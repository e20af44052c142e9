package fakepsp

// decline is how one of Stripe's test payment methods fails.
type decline struct{ code, declineCode, message string }

// declines are Stripe's test PaymentMethods that fail at confirmation
// (https://docs.stripe.com/testing#declined-payments). Every other payment
// method (pm_card_visa, pm_1, ...) succeeds.
var declines = map[string]decline{}

func init() {
	generic := decline{"card_declined", "generic_decline", "Your card was declined."}
	for pm, d := range map[string]decline{
		"chargeDeclined":                  generic,
		"chargeDeclinedInsufficientFunds": {"card_declined", "insufficient_funds", "Your card has insufficient funds."},
		"chargeDeclinedLostCard":          {"card_declined", "lost_card", "Your card was declined."},
		"chargeDeclinedStolenCard":        {"card_declined", "stolen_card", "Your card was declined."},
		"chargeDeclinedFraudulent":        {"card_declined", "fraudulent", "Your card was declined."},
		"chargeDeclinedExpiredCard":       {"expired_card", "expired_card", "Your card has expired."},
		"chargeDeclinedIncorrectCvc":      {"incorrect_cvc", "incorrect_cvc", "Your card's security code is incorrect."},
		"chargeDeclinedProcessingError":   {"processing_error", "processing_error", "An error occurred while processing your card. Try again in a little bit."},
		"chargeDeclinedVelocityLimitExceeded": {"card_declined", "card_velocity_exceeded",
			"Your card was declined for making repeated attempts too frequently or exceeding its amount limit."},
	} {
		declines["pm_card_"+pm] = d
		declines["pm_card_visa_"+pm] = d
	}
	declines["pm_card_visa_chargeDeclined"] = generic
}

// currencies Stripe accepts (lower-case ISO 4217), the common subset.
var currencies = map[string]bool{}

func init() {
	for _, c := range []string{"usd", "eur", "gbp", "jpy", "cad", "aud", "nzd", "chf", "sek", "nok", "dkk", "pln",
		"czk", "huf", "ron", "bgn", "isk", "try", "mxn", "brl", "ars", "clp", "cop", "pen", "inr", "cny", "hkd",
		"sgd", "krw", "twd", "thb", "myr", "idr", "php", "vnd", "aed", "sar", "ils", "zar", "egp", "ngn", "kes"} {
		currencies[c] = true
	}
}

func knownCurrency(c string) bool { return currencies[c] }
