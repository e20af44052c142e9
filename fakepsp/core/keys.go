package core

import (
	"crypto/sha256"
	"encoding/binary"
	"strings"
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

// KeyEntry is a key's saved answer, as a replay sends it back.
type KeyEntry struct {
	Status    int
	Body      []byte
	RequestID string // the first request's id, which a replay names
}

// keyRec is one idempotency key's record, kept for the key's whole window
// (24 h at Stripe), so a soak keeps thousands: in memory only what Claim
// compares and what says where the rest is. While executing, repeats get
// the dialect's in-use answer; once saved, repeats get the answer back.
type keyRec struct {
	fp        keyPrint      // of the scope and the canonical parameters
	created   time.Duration // since the store's base: Claim's clock, monotonic when it is
	status    int32
	executing bool
	ref       spill.Ref // the scope, request id and body on disk (keyBlob)
	mem       *keyMem   // while executing, or when there is no disk or writing failed
}

// keyMem is what a record holds in memory instead of on disk.
type keyMem struct {
	scope, requestID string
	body             []byte
}

// KeyStore holds one account's keys. Not safe for concurrent use: the PSP
// guards it with its own lock.
type KeyStore struct {
	m    map[string]*keyRec
	base time.Time // the first claim's time: records keep an offset from it
}

// NewKeyStore makes an empty store.
func NewKeyStore() *KeyStore { return &KeyStore{m: map[string]*keyRec{}} }

// ClaimResult says what a request under a key must do.
type ClaimResult int

// The outcomes of claim.
const (
	ClaimFresh    ClaimResult = iota // new entry, executing: this request runs
	ClaimReplay                      // saved result: answer it
	ClaimMismatch                    // same key, other scope or parameters
	ClaimInUse                       // the first request is still executing
)

// claim looks key up and, when it is absent or expired, records it as
// executing so that a concurrent repeat sees it in use.
func (s *KeyStore) claim(key, scope, params string, now time.Time, window time.Duration) (*keyRec, ClaimResult) {
	if s.base.IsZero() {
		s.base = now
	}
	at := now.Sub(s.base)
	fp := fingerprint(scope, params)
	e, found := s.m[key]
	if found && !e.executing && at-e.created >= window {
		delete(s.m, key) // expired: the key starts a new request
		found = false
	}
	if !found {
		// The scope cloned: one sliced from a header line keeps the whole
		// line. The key is the caller's own copy already (Keyed.Key), the
		// one its events keep too: not a second per key.
		e = &keyRec{fp: fp, created: at, executing: true, mem: &keyMem{scope: strings.Clone(scope)}}
		s.m[key] = e
		return e, ClaimFresh
	}
	if e.fp != fp {
		return e, ClaimMismatch
	}
	if e.executing {
		return e, ClaimInUse
	}
	return e, ClaimReplay
}

// save records the first request's answer under the key: on disk at ref
// when spilled, else in memory.
func (s *KeyStore) save(e *keyRec, status int, body []byte, requestID string, ref spill.Ref, spilled bool) {
	e.executing, e.status = false, int32(status)
	if spilled {
		e.ref, e.mem = ref, nil
		return
	}
	e.mem.body, e.mem.requestID = body, strings.Clone(requestID)
}

// release forgets a key whose request never began executing (validation
// failed), so a corrected request may reuse it.
func (s *KeyStore) release(key string, e *keyRec) {
	if s.m[key] == e {
		delete(s.m, key)
	}
}

// keyPrint is a request's fingerprint: the first 16 bytes of its SHA-256,
// which makes a record 64 bytes instead of 80. Two different requests
// under one key share a print by chance with odds of 2^-128, far below any
// other way a check can be wrong.
type keyPrint [16]byte

// fingerprint is what a key keeps of its request's scope and canonical
// parameters: only their equality is ever asked, and the parameters (a
// metadata-laden form body) are many times the 16 bytes of their hash.
// The scope's length goes first, so no scope and parameters run into
// another pair's.
func fingerprint(scope, params string) keyPrint {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(scope)))
	h.Write(n[:])
	h.Write([]byte(scope))
	h.Write([]byte(params))
	var sum [sha256.Size]byte
	var fp keyPrint
	copy(fp[:], h.Sum(sum[:0]))
	return fp
}
