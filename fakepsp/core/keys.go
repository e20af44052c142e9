package core

import (
	"crypto/sha256"
	"time"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// KeyRules are one dialect's idempotency-key rules, as its PSP documents
// them; the record-keeping below is the same for every PSP. Which part of a
// request a key is bound to (its scope) and what makes two requests "the
// same" (its fingerprint) are the dialect's to compute per request.
type KeyRules struct {
	// Header carries the key: "Idempotency-Key" (Stripe, Adyen),
	// "Cko-Idempotency-Key" (Checkout.com).
	Header string
	// MaxLen is the longest key accepted (Stripe 255, Adyen 64).
	MaxLen int
	// Window is how long a key's saved answer is kept (retention); a key
	// older than that starts a new request.
	Window time.Duration
}

// TooLong reports a key the PSP refuses for its length.
func (r KeyRules) TooLong(key string) bool { return len(key) > r.MaxLen }

// KeyEntry is one idempotency key's record. While executing, repeats get
// the dialect's in-use answer; once saved, repeats get Status and Body back.
type KeyEntry struct {
	Scope       string // what the key is bound to, e.g. "POST /v1/payment_intents"
	Fingerprint string // SHA-256 of the request's canonical parameters (fingerprint)
	Created     time.Time
	Executing   bool
	Status      int
	Body        []byte // nil when it is on disk, at BodyRef (Keyed)
	BodyRef     spill.Ref
	RequestID   string // the first request's id, which a replay names
}

// KeyStore holds one account's keys. Not safe for concurrent use: the PSP
// guards it with its own lock.
type KeyStore struct{ m map[string]*KeyEntry }

// NewKeyStore makes an empty store.
func NewKeyStore() *KeyStore { return &KeyStore{m: map[string]*KeyEntry{}} }

// ClaimResult says what a request under a key must do.
type ClaimResult int

// The outcomes of Claim.
const (
	ClaimFresh    ClaimResult = iota // new entry, executing: this request runs
	ClaimReplay                      // saved result: answer it
	ClaimMismatch                    // same key, other scope or parameters
	ClaimInUse                       // the first request is still executing
)

// Claim looks key up and, when it is absent or expired, records it as
// executing so that a concurrent repeat sees it in use.
func (s *KeyStore) Claim(key, scope, fp string, now time.Time, window time.Duration) (*KeyEntry, ClaimResult) {
	fp = fingerprint(fp)
	e, found := s.m[key]
	if found && !e.Executing && now.Sub(e.Created) >= window {
		delete(s.m, key) // expired: the key starts a new request
		found = false
	}
	if !found {
		e = &KeyEntry{Scope: scope, Fingerprint: fp, Created: now, Executing: true}
		s.m[key] = e
		return e, ClaimFresh
	}
	if e.Scope != scope || e.Fingerprint != fp {
		return e, ClaimMismatch
	}
	if e.Executing {
		return e, ClaimInUse
	}
	return e, ClaimReplay
}

// Save stores the first request's answer under the key.
func (s *KeyStore) Save(e *KeyEntry, status int, body []byte, requestID string) {
	e.Executing, e.Status, e.Body, e.RequestID = false, status, body, requestID
}

// Release forgets a key whose request never began executing (validation
// failed), so a corrected request may reuse it.
func (s *KeyStore) Release(key string, e *KeyEntry) {
	if s.m[key] == e {
		delete(s.m, key)
	}
}

// fingerprint is what a key keeps of its request's canonical parameters:
// only their equality is ever asked, and the parameters (a metadata-laden
// form body) are many times the 32 bytes of their hash, kept per key for
// the key's whole window.
func fingerprint(params string) string {
	h := sha256.Sum256([]byte(params))
	return string(h[:])
}
