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
	PaymentMethod map[string]any `json:"payment_method,omitempty"`
	DocURL        string         `json:"doc_url,omitempty"`
	RequestLogURL string         `json:"request_log_url,omitempty"`
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

// withLogURL adds the request's log page to an error, as Stripe links
// every error to its dashboard log.
func withLogURL(c *call, resp response) response {
	m, isMap := resp.body.(map[string]any)
	if !isMap {
		return resp
	}
	if e, isErr := m["error"].(stripeError); isErr && e.RequestLogURL == "" {
		e.RequestLogURL = "https://dashboard.stripe.com/test/logs/" + c.requestID
		resp.body = map[string]any{"error": e}
	}
	return resp
}

// shouldRetry is the Stripe-Should-Retry header Stripe's libraries obey
// (stripe-go's shouldRetry reads it before the status): true on a 409 (a key
// in use by a request still running: the same request succeeds once that
// one ends), false on the 4xx answers a retry can only repeat. 429 and 5xx
// carry none, so each library keeps its own rule (stripe-go retries a 5xx,
// and fakepsp replays a saved 500 under its key, as Stripe does).
func shouldRetry(status int) string {
	switch {
	case status == http.StatusConflict:
		return "true"
	case status >= 400 && status < 500 && status != http.StatusTooManyRequests:
		return "false"
	}
	return ""
}
