package adyen

import "strings"

// Outcome is what a test card does to a payment.
type Outcome struct {
	ResultCode        string
	RefusalReason     string
	RefusalReasonCode string
}

// Authorised is a card that pays.
var Authorised = Outcome{ResultCode: ResultAuthorised}

// refusals are Adyen's test-platform refusals, triggered by the card
// holder's name; the reason codes are Adyen's refusal reason codes.
var refusals = map[string]Outcome{
	"REFUSED":            {ResultRefused, "Refused", "2"},
	"BLOCKED_CARD":       {ResultRefused, "Blocked Card", "5"},
	"CARD_EXPIRED":       {ResultRefused, "Expired Card", "6"},
	"NOT_ENOUGH_BALANCE": {ResultRefused, "Not enough balance", "12"},
	"CVC_DECLINED":       {ResultRefused, "CVC Declined", "24"},
	"DECLINED":           {ResultRefused, "Declined Non Generic", "27"},
	"ERROR":              {ResultError, "Acquirer Error", "4"},
}

// CardOutcome is what the payment method does: a holder name that names
// one of Adyen's test refusals refuses; every other card is authorised.
func CardOutcome(pm *PaymentMethod) Outcome {
	if pm == nil {
		return Authorised
	}
	if o, ok := refusals[strings.ToUpper(strings.TrimSpace(pm.HolderName))]; ok {
		return o
	}
	return Authorised
}

// Method is how the ground truth and the notifications name the method:
// the stored method's id, else the card's brand from its number.
func Method(pm *PaymentMethod) string {
	switch {
	case pm == nil:
		return ""
	case pm.StoredPaymentMethodID != "":
		return pm.StoredPaymentMethodID
	case strings.HasPrefix(pm.Number, "4"):
		return "visa"
	case strings.HasPrefix(pm.Number, "5"), strings.HasPrefix(pm.Number, "2"):
		return "mc"
	case strings.HasPrefix(pm.Number, "3"):
		return "amex"
	}
	return "scheme"
}
