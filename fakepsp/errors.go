package fakepsp

import "net/http"

// stripeError is the body of every error: {"error":{...}} as Stripe sends it.
type stripeError struct {
	Type          string         `json:"type"`
	Code          string         `json:"code,omitempty"`
	DeclineCode   string         `json:"decline_code,omitempty"`
	Message       string         `json:"message"`
	Param         string         `json:"param,omitempty"`
	PaymentIntent map[string]any `json:"payment_intent,omitempty"`
	Charge        string         `json:"charge,omitempty"`
	DocURL        string         `json:"doc_url,omitempty"`
}

// response is what a handler answers: a status and a JSON-able body.
type response struct {
	status int
	body   any
}

func ok(body any) response { return response{status: http.StatusOK, body: body} }

func errResp(status int, e stripeError) response {
	return response{status: status, body: map[string]any{"error": e}}
}

func invalidParam(param, msg string) response {
	return errResp(http.StatusBadRequest, stripeError{Type: "invalid_request_error", Code: "parameter_invalid", Param: param, Message: msg})
}

func missingParam(param string) response {
	return errResp(http.StatusBadRequest, stripeError{Type: "invalid_request_error", Code: "parameter_missing", Param: param, Message: "Missing required param: " + param + "."})
}

func notFound(param, what, id string) response {
	return errResp(http.StatusNotFound, stripeError{Type: "invalid_request_error", Code: "resource_missing", Param: param, Message: "No such " + what + ": '" + id + "'"})
}

func apiError() response {
	return errResp(http.StatusInternalServerError, stripeError{Type: "api_error", Message: "An unknown error occurred while processing your request."})
}

func rateLimited() response {
	return errResp(http.StatusTooManyRequests, stripeError{Type: "invalid_request_error", Code: "rate_limit", Message: "Too many requests hit the API too quickly. We recommend an exponential backoff of your requests."})
}
