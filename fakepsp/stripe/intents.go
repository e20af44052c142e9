package stripe

import (
	"net/http"
	"strings"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// A PaymentIntent's status words for the core's states.
const (
	StatusRequiresPM      = "requires_payment_method"
	StatusRequiresConfirm = "requires_confirmation"
	StatusRequiresCapture = "requires_capture"
	StatusCanceled        = "canceled"
	StatusSucceeded       = "succeeded"
)

// Status is the PaymentIntent status Stripe shows for s.
func Status(s core.State) string {
	switch s {
	case core.StateNoMethod:
		return StatusRequiresPM
	case core.StateHasMethod:
		return StatusRequiresConfirm
	case core.StateAuthorized:
		return StatusRequiresCapture
	case core.StateSucceeded:
		return StatusSucceeded
	case core.StateCanceled:
		return StatusCanceled
	}
	return ""
}

// UnexpectedState is the 400 for a confirmation of an intent in status.
func UnexpectedState(status string) core.Reply {
	return ErrorReply(http.StatusBadRequest, Error{Type: "invalid_request_error", Code: "payment_intent_unexpected_state",
		Message: "You cannot confirm this PaymentIntent because it has a status of " + status + "."})
}

// MissingPM is the 400 for a confirmation without a payment method.
func MissingPM() core.Reply {
	return ErrorReply(http.StatusBadRequest, Error{Type: "invalid_request_error", Code: "payment_intent_unexpected_state", Param: "payment_method",
		Message: "You cannot confirm this PaymentIntent because it's missing a payment method."})
}

// CaptureState is the 400 for a capture of an intent in status. The
// already-captured wording is Stripe's as quoted in stripe/stripe-php#818
// (code payment_intent_unexpected_state).
func CaptureState(status string) core.Reply {
	msg := "This PaymentIntent could not be captured because it has a status of " + status +
		". Only a PaymentIntent with one of the following statuses may be captured: requires_capture."
	if status == StatusSucceeded {
		msg = "This PaymentIntent could not be captured because it has already been captured."
	}
	return ErrorReply(http.StatusBadRequest, Error{Type: "invalid_request_error", Code: "payment_intent_unexpected_state", Message: msg})
}

// cancelable are the statuses Stripe lets a cancel run in, as its message
// lists them (requires_action and processing are statuses fakepsp never
// reaches).
var cancelable = []string{StatusRequiresPM, StatusRequiresCapture, StatusRequiresConfirm, "requires_action", "processing"}

// CancelState is the 400 for a cancel of an intent in status.
func CancelState(status string) core.Reply {
	return ErrorReply(http.StatusBadRequest, Error{Type: "invalid_request_error", Code: "payment_intent_unexpected_state",
		Message: "You cannot cancel this PaymentIntent because it has a status of " + status +
			". Only a PaymentIntent with one of the following statuses may be canceled: " + strings.Join(cancelable, ", ") + "."})
}

// updatable are the statuses Stripe lets amount, currency, payment_method
// and capture_method change in, as its message lists them; metadata and
// description change in any status.
var updatable = []string{StatusRequiresPM, StatusRequiresConfirm, "requires_action"}

// UpdateState is the 400 for an update of field of an intent in status.
func UpdateState(field, status string) core.Reply {
	return ErrorReply(http.StatusBadRequest, Error{Type: "invalid_request_error", Code: "payment_intent_unexpected_state", Param: field,
		Message: "This PaymentIntent's " + field + " could not be updated because it has a status of " + status +
			". You may only update the " + field + " of a PaymentIntent with one of the following statuses: " + strings.Join(updatable, ", ") + "."})
}
