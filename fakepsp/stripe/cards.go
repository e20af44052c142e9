package stripe

import "strings"

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

// Decline is how one of Stripe's test payment methods fails: the error's
// code and decline_code, and its message.
type Decline struct{ Code, DeclineCode, Message string }

// declines are Stripe's test PaymentMethods that fail at confirmation
// (https://docs.stripe.com/testing#declined-payments). Every other payment
// method (pm_card_visa, pm_1, ...) succeeds.
var declines = map[string]Decline{}

func init() {
	generic := Decline{"card_declined", "generic_decline", "Your card was declined."}
	for pm, d := range map[string]Decline{
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

// KnownCurrency says whether Stripe takes c (lower case).
func KnownCurrency(c string) bool { return currencies[c] }

// DeclineOf is how pm fails at confirmation, if it is one of Stripe's
// declining test methods.
func DeclineOf(pm string) (Decline, bool) {
	d, ok := declines[pm]
	return d, ok
}

// IsTestCard says whether id is one of Stripe's test payment methods.
func IsTestCard(id string) bool {
	_, ok := testCards[id]
	return ok
}

// CardError is Stripe's card_error for a decline: the failed charge, the
// payment method (expanded, as Stripe sends it) and the page about the code.
func CardError(d Decline, chargeID, pm string) Error {
	return Error{Type: "card_error", Code: d.Code, DeclineCode: d.DeclineCode, Message: d.Message, Charge: chargeID,
		PaymentMethod: MethodJSON(pm), DocURL: "https://stripe.com/docs/error-codes/" + strings.ReplaceAll(d.Code, "_", "-")}
}
