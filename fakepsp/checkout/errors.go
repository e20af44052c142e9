package checkout

import (
	"net/http"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// ErrorBody is Checkout.com's error body.
type ErrorBody struct {
	RequestID  string   `json:"request_id"`
	ErrorType  string   `json:"error_type"`
	ErrorCodes []string `json:"error_codes,omitempty"`
}

// Refuse is Checkout.com's answer to a refusal the core decided. A key in
// use is 409 (Checkout.com answered 429 before; its support pages say it
// is 409 now); Checkout.com documents no mismatch error, and keys are bound
// to no body (Bind), so the core decides none.
func (Dialect) Refuse(r core.Refusal) core.Reply {
	switch r.Kind {
	case core.RefuseNoCredential, core.RefuseBadCredential:
		return core.Reply{Status: http.StatusUnauthorized}
	case core.RefuseRateLimited:
		return Err(http.StatusTooManyRequests, "too_many_requests")
	case core.RefuseKeyTooLong:
		return Err(http.StatusUnprocessableEntity, "request_invalid", "idempotency_key_invalid")
	case core.RefuseKeyMismatch, core.RefuseKeyInUse:
		return Err(http.StatusConflict, "conflict")
	case core.RefuseStorage:
		// Checkout.com's error body has no message: the failure goes in its codes.
		return Err(http.StatusInternalServerError, "fakepsp_storage_error", "fakepsp: "+r.Detail)
	}
	return Err(http.StatusBadGateway, "bad_gateway")
}

// Err is an error reply in Checkout.com's body.
func Err(status int, kind string, codes ...string) core.Reply {
	return core.Reply{Status: status, Body: ErrorBody{RequestID: "req_" + token(26), ErrorType: kind, ErrorCodes: codes}}
}
