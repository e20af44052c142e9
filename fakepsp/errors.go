package fakepsp

import (
	"net/http"

	"github.com/idemcheck/idemcheck/fakepsp/core"
	wire "github.com/idemcheck/idemcheck/fakepsp/stripe"
)

// stripeError is the body of every error (fakepsp/stripe's Error).
type stripeError = wire.Error

// params are a request's Stripe form parameters (fakepsp/stripe's Params).
type params = wire.Params

// response is what a handler answers: a status and a JSON-able body.
type response = core.Reply

func ok(body any) response { return response{Status: http.StatusOK, Body: body} }

// Stripe's error bodies (fakepsp/stripe/errors.go).
func errResp(status int, e stripeError) response { return wire.ErrorReply(status, e) }
func invalidParam(param, msg string) response    { return wire.InvalidParam(param, msg) }
func missingParam(param string) response         { return wire.MissingParam(param) }
func notFound(param, what, id string) response   { return wire.NotFound(param, what, id) }

// paginate is one page of a Stripe list (fakepsp/stripe/lists.go).
func paginate(c *call, url string, ids []string, items []any) response {
	return wire.Paginate(c.params, url, ids, items)
}

func apiError() response { return refuse(core.Refusal{Kind: core.RefuseInternal}) }

func rateLimited() response { return refuse(core.Refusal{Kind: core.RefuseRateLimited}) }

// refuse is the dialect's answer to a refusal the core decided.
func refuse(r core.Refusal) response {
	return dialect.Refuse(r)
}

// withLogURL adds the request's log page to an error, as Stripe links
// every error to its dashboard log.
func withLogURL(c *call, resp response) response {
	m, isMap := resp.Body.(map[string]any)
	if !isMap {
		return resp
	}
	if e, isErr := m["error"].(stripeError); isErr && e.RequestLogURL == "" {
		e.RequestLogURL = "https://dashboard.stripe.com/test/logs/" + c.requestID
		resp.Body = map[string]any{"error": e}
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
