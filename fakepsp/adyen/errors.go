package adyen

import (
	"net/http"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// ServiceError is Adyen's error body.
type ServiceError struct {
	Status       int    `json:"status"`
	ErrorCode    string `json:"errorCode"`
	Message      string `json:"message"`
	ErrorType    string `json:"errorType"`
	PSPReference string `json:"pspReference,omitempty"`
}

// The error codes this dialect answers. 000 (an unauthorized request) and
// 704 (a key whose first request still runs) are the ones Adyen's pages
// name for these cases. Adyen documents no code for its own server errors,
// a rate limit or an over-long key: for those the status and errorType are
// Adyen's kinds and the code is one of Adyen's general validation and
// internal codes, so a receiver branching on the status sees what it
// would see from Adyen.
const (
	CodeUnauthorized = "000"
	CodeInProgress   = "704"
	CodeInternal     = "901"
	CodeRateLimited  = "010"
	CodeKeyTooLong   = "702"
	CodeNotFound     = "167"
	CodeInvalid      = "100"
)

// TransientHeader is the header Adyen sets on a 704: "true" says the same
// request may be retried later under the same key.
const TransientHeader = "Transient-Error"

// Refuse is Adyen's answer to a refusal the core decided.
func (Dialect) Refuse(r core.Refusal) core.Reply {
	switch r.Kind {
	case core.RefuseNoCredential, core.RefuseBadCredential:
		return Err(http.StatusUnauthorized, CodeUnauthorized, "HTTP Status Response - Unauthorized", "security")
	case core.RefuseRateLimited:
		return Err(http.StatusTooManyRequests, CodeRateLimited, "Too many requests", "validation")
	case core.RefuseKeyTooLong:
		return Err(http.StatusBadRequest, CodeKeyTooLong, "Idempotency-Key is longer than 64 characters", "validation")
	case core.RefuseKeyMismatch:
		// Bind gives keys no scope and no fingerprint, so the core never
		// decides this; were it to, Adyen's nearest answer is the in-use one.
		fallthrough
	case core.RefuseKeyInUse:
		return Err(http.StatusUnprocessableEntity, CodeInProgress, "request already processed or in progress", "validation")
	case core.RefuseStorage:
		return Err(http.StatusInternalServerError, CodeInternal, "fakepsp: "+r.Detail, "internal")
	}
	return Err(http.StatusInternalServerError, CodeInternal, "Internal server error", "internal")
}

// Err is an error reply in Adyen's body.
func Err(status int, code, message, kind string) core.Reply {
	return core.Reply{Status: status, Body: ServiceError{Status: status, ErrorCode: code, Message: message, ErrorType: kind}}
}
