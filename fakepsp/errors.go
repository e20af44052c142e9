package fakepsp

import (
	"net/http"

	"github.com/idemcheck/idemcheck/fakepsp/core"
	wire "github.com/idemcheck/idemcheck/fakepsp/stripe"
)

// stripeError is the body of every error (fakepsp/stripe's Error).
type stripeError = wire.Error

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

func apiError() response { return refuse(core.Refusal{Kind: core.RefuseInternal}) }

func rateLimited() response { return refuse(core.Refusal{Kind: core.RefuseRateLimited}) }

// refuse is the dialect's answer to a refusal the core decided.
func refuse(r core.Refusal) response {
	rep := dialect.Refuse(r)
	return response{status: rep.Status, body: rep.Body}
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
