package fakepsp

import (
	"net/http"
	"time"
)

// maxKeyLen is Stripe's limit on Idempotency-Key.
const maxKeyLen = 255

// keyEntry is one idempotency key's record. While executing, repeats get 409;
// once saved, repeats get status and body back.
type keyEntry struct {
	endpoint    string // "POST /v1/payment_intents"
	fingerprint string // canonical parameters
	created     time.Time
	executing   bool
	status      int
	body        []byte
	requestID   string
}

// keyStore holds one account's keys. Guarded by PSP.mu.
type keyStore struct{ m map[string]*keyEntry }

func newKeyStore() *keyStore { return &keyStore{m: map[string]*keyEntry{}} }

type claimResult int

const (
	claimFresh    claimResult = iota // new entry, executing: this request runs
	claimReplay                      // saved result: answer it
	claimMismatch                    // same key, other endpoint or parameters
	claimInUse                       // the first request is still executing
)

// claim looks key up and, when it is absent or expired, records it as
// executing so that a concurrent repeat sees it in use.
func (s *keyStore) claim(key, endpoint, fp string, now time.Time, window time.Duration) (*keyEntry, claimResult) {
	e, found := s.m[key]
	if found && !e.executing && now.Sub(e.created) >= window {
		delete(s.m, key) // expired: the key starts a new request
		found = false
	}
	if !found {
		e = &keyEntry{endpoint: endpoint, fingerprint: fp, created: now, executing: true}
		s.m[key] = e
		return e, claimFresh
	}
	if e.endpoint != endpoint || e.fingerprint != fp {
		return e, claimMismatch
	}
	if e.executing {
		return e, claimInUse
	}
	return e, claimReplay
}

// save stores the first request's answer under the key.
func (s *keyStore) save(e *keyEntry, status int, body []byte, requestID string) {
	e.executing, e.status, e.body, e.requestID = false, status, body, requestID
}

// release forgets a key whose request never began executing (validation
// failed), so a corrected request may reuse it.
func (s *keyStore) release(key string, e *keyEntry) {
	if s.m[key] == e {
		delete(s.m, key)
	}
}

func keyTooLong() response {
	return errResp(http.StatusBadRequest, stripeError{Type: "invalid_request_error", Code: "idempotency_key_too_long", Param: "Idempotency-Key",
		Message: "Idempotency-Key must be at most 255 characters long."})
}

func keyMismatch(key string, e *keyEntry, endpoint string) response {
	msg := "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '" + key + "' if you meant to execute a different request."
	if e.endpoint != endpoint {
		msg = "Keys for idempotent requests can only be used for the same endpoint they were first used for ('" + e.endpoint + "' vs '" + endpoint + "'). Try using a key other than '" + key + "' if you meant to execute a different request."
	}
	return errResp(http.StatusBadRequest, stripeError{Type: "idempotency_error", Message: msg})
}

func keyInUse(key string) response {
	return errResp(http.StatusConflict, stripeError{Type: "invalid_request_error", Code: "idempotency_key_in_use",
		Message: "There is currently another in-progress request using this Idempotent Key ('" + key + "'); please try again later."})
}
