package stripe

import (
	"net/http"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// Refuse is Stripe's answer to a refusal the core decided, word for word
// as Stripe sends it.
func (Dialect) Refuse(r core.Refusal) core.Reply {
	switch r.Kind {
	case core.RefuseNoCredential:
		return reply(http.StatusUnauthorized, Error{Type: "invalid_request_error",
			Message: "You did not provide an API key. Provide it in the Authorization header (Authorization: Bearer YOUR_SECRET_KEY)."})
	case core.RefuseBadCredential:
		return reply(http.StatusUnauthorized, Error{Type: "invalid_request_error", Code: "api_key_invalid",
			Message: "Invalid API Key provided: " + Redact(r.Key)})
	case core.RefuseRateLimited:
		return reply(http.StatusTooManyRequests, Error{Type: "invalid_request_error", Code: "rate_limit", Message: "Too many requests hit the API too quickly. We recommend an exponential backoff of your requests."})
	case core.RefuseKeyTooLong:
		return reply(http.StatusBadRequest, Error{Type: "invalid_request_error", Code: "idempotency_key_too_long", Param: "Idempotency-Key",
			Message: "Idempotency-Key must be at most 255 characters long."})
	case core.RefuseKeyMismatch:
		msg := "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '" + r.Key + "' if you meant to execute a different request."
		if r.FirstScope != r.Scope {
			msg = "Keys for idempotent requests can only be used for the same endpoint they were first used for ('" + r.FirstScope + "' vs '" + r.Scope + "'). Try using a key other than '" + r.Key + "' if you meant to execute a different request."
		}
		return reply(http.StatusBadRequest, Error{Type: "idempotency_error", Message: msg})
	case core.RefuseKeyInUse:
		return reply(http.StatusConflict, Error{Type: "invalid_request_error", Code: "idempotency_key_in_use",
			Message: "There is currently another in-progress request using this Idempotent Key ('" + r.Key + "'); please try again later."})
	case core.RefuseStorage:
		return reply(http.StatusInternalServerError, Error{Type: "api_error", Message: "fakepsp: " + r.Detail})
	}
	// RefuseInternal, and any refusal a newer core adds: Stripe's 500.
	return reply(http.StatusInternalServerError, Error{Type: "api_error", Message: "An unknown error occurred while processing your request."})
}

// reply is Stripe's error envelope, {"error":{...}}.
func reply(status int, e Error) core.Reply { return ErrorReply(status, e) }
