package stripe

import (
	"net/http"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// params are a request's Stripe form parameters (params.go).
type params = Params

// response is what a handler answers: a status and a JSON-able body.
type response = core.Reply

func ok(body any) response { return response{Status: http.StatusOK, Body: body} }

// Stripe's error bodies (errors.go).
func errResp(status int, e Error) response     { return ErrorReply(status, e) }
func invalidParam(param, msg string) response  { return InvalidParam(param, msg) }
func missingParam(param string) response       { return MissingParam(param) }
func notFound(param, what, id string) response { return NotFound(param, what, id) }

// paginate is one page of a Stripe list (lists.go).
func paginate(c *call, url string, ids []string, items []any) response {
	return Paginate(c.params, url, ids, items)
}

func apiError() response { return refuse(core.Refusal{Kind: core.RefuseInternal}) }

func rateLimited() response { return refuse(core.Refusal{Kind: core.RefuseRateLimited}) }

// refuse is the dialect's answer to a refusal the core decided.
func refuse(r core.Refusal) response {
	return Dialect{}.Refuse(r)
}

// withLogURL adds the request's log page to an error, as Stripe links
// every error to its dashboard log.
func withLogURL(c *call, resp response) response {
	m, isMap := resp.Body.(map[string]any)
	if !isMap {
		return resp
	}
	if e, isErr := m["error"].(Error); isErr && e.RequestLogURL == "" {
		e.RequestLogURL = "https://dashboard.stripe.com/test/logs/" + c.requestID
		resp.Body = map[string]any{"error": e}
	}
	return resp
}

// ShouldRetry is the Stripe-Should-Retry header Stripe's libraries obey
// (stripe-go's shouldRetry reads it before the status): true on a 409 (a key
// in use by a request still running: the same request succeeds once that
// one ends), false on the 4xx answers a retry can only repeat. 429 and 5xx
// carry none, so each library keeps its own rule (stripe-go retries a 5xx,
// and fakepsp replays a saved 500 under its key, as Stripe does).
func ShouldRetry(status int) string {
	switch {
	case status == http.StatusConflict:
		return "true"
	case status >= 400 && status < 500 && status != http.StatusTooManyRequests:
		return "false"
	}
	return ""
}
