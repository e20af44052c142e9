package fakepsp

import (
	"net/http"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

func keyTooLong() response {
	return errResp(http.StatusBadRequest, stripeError{Type: "invalid_request_error", Code: "idempotency_key_too_long", Param: "Idempotency-Key",
		Message: "Idempotency-Key must be at most 255 characters long."})
}

func keyMismatch(key string, e *core.KeyEntry, endpoint string) response {
	msg := "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '" + key + "' if you meant to execute a different request."
	if e.Scope != endpoint {
		msg = "Keys for idempotent requests can only be used for the same endpoint they were first used for ('" + e.Scope + "' vs '" + endpoint + "'). Try using a key other than '" + key + "' if you meant to execute a different request."
	}
	return errResp(http.StatusBadRequest, stripeError{Type: "idempotency_error", Message: msg})
}

func keyInUse(key string) response {
	return errResp(http.StatusConflict, stripeError{Type: "invalid_request_error", Code: "idempotency_key_in_use",
		Message: "There is currently another in-progress request using this Idempotent Key ('" + key + "'); please try again later."})
}
