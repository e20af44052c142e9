package stripe

import (
	"net/http"
	"slices"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// Error is the body of every Stripe error: {"error":{...}} as Stripe sends it.
type Error struct {
	Type          string         `json:"type"`
	Code          string         `json:"code,omitempty"`
	DeclineCode   string         `json:"decline_code,omitempty"`
	Message       string         `json:"message"`
	Param         string         `json:"param,omitempty"`
	PaymentIntent map[string]any `json:"payment_intent,omitempty"`
	Charge        string         `json:"charge,omitempty"`
	PaymentMethod map[string]any `json:"payment_method,omitempty"`
	DocURL        string         `json:"doc_url,omitempty"`
	RequestLogURL string         `json:"request_log_url,omitempty"`
}

// ErrorReply is e in Stripe's envelope, {"error":{...}}, with status.
func ErrorReply(status int, e Error) core.Reply {
	return core.Reply{Status: status, Body: map[string]any{"error": e}}
}

// InvalidParam is Stripe's 400 parameter_invalid.
func InvalidParam(param, msg string) core.Reply {
	return ErrorReply(http.StatusBadRequest, Error{Type: "invalid_request_error", Code: "parameter_invalid", Param: param, Message: msg})
}

// MissingParam is Stripe's 400 parameter_missing.
func MissingParam(param string) core.Reply {
	return ErrorReply(http.StatusBadRequest, Error{Type: "invalid_request_error", Code: "parameter_missing", Param: param, Message: "Missing required param: " + param + "."})
}

// NotFound is Stripe's 404 resource_missing.
func NotFound(param, what, id string) core.Reply {
	return ErrorReply(http.StatusNotFound, Error{Type: "invalid_request_error", Code: "resource_missing", Param: param, Message: "No such " + what + ": '" + id + "'"})
}

// NotExpandable is the 400 for an expand[] of a field the answer cannot
// expand; it suggests data.field when that one can.
func NotExpandable(field string, allowed []string) core.Reply {
	msg := "This property cannot be expanded (" + field + ")."
	if slices.Contains(allowed, "data."+field) {
		msg += " You may want to try expanding 'data." + field + "' instead."
	}
	return ErrorReply(http.StatusBadRequest, Error{Type: "invalid_request_error", Message: msg})
}
