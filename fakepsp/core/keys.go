package core

import (
	"crypto/sha256"
	"encoding/binary"
	"hash/maphash"
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

// keyRec is one idempotency key's record while it is in memory: while its
// first request executes (repeats get the dialect's in-use answer), and once
// saved when there is no disk, writing failed or the key's hash is another
// saved key's. A saved key otherwise leaves memory for the store's index
// (see KeyStore), and a claim that hits it reads this back from disk.
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
	key, scope, requestID string
	body                  []byte
}

// KeyStore holds one account's keys. A saved key is kept for its whole
// window (24 h at Stripe), so a soak keeps every key it sent, two per
// PaymentIntent: even its hash and where its record is, 16 bytes in a map,
// grew a soak's heap by some 70 bytes a PaymentIntent (issue 54). So a
// saved key is indexed on disk, next to its record (keyRecordBlob): the
// key's hash to where the record is, memory keeping nothing per key. The
// record holds the key's text, which a hit compares, so that two keys
// sharing a hash never answer each other's request. An index that cannot
// be read is an error, never "absent": a fresh claim on a saved key would
// run its request twice. Without a disk, keys stay in memory. Not safe for
// concurrent use: the PSP guards it with its own lock.
type KeyStore struct {
	m     map[string]*keyRec
	saved *spill.HashIndex        // on the disk claimOn and save are given, made on the first save there
	hash  func(key string) uint64 // a test forces collisions with its own
	base  time.Time               // the first claim's time: records keep an offset from it
}

// NewKeyStore makes an empty store. Its hash has the store's own seed, so
// keys chosen to collide in one run do not in another.
func NewKeyStore() *KeyStore {
	seed := maphash.MakeSeed()
	return &KeyStore{m: map[string]*keyRec{},
		hash: func(key string) uint64 { return maphash.String(seed, key) }}
}

// index is the index of saved keys on disk, made there on first use; nil
// without a disk.
func (s *KeyStore) index(disk *spill.Store) *spill.HashIndex {
	if s.saved == nil && disk != nil {
		s.saved = disk.HashIndex("keys")
	}
	return s.saved
}

// ClaimResult says what a request under a key must do.
type ClaimResult int

// The outcomes of claim.
const (
	ClaimFresh    ClaimResult = iota // new entry, executing: this request runs
	ClaimReplay                      // saved result: answer it
	ClaimMismatch                    // same key, other scope or parameters
	ClaimInUse                       // the first request is still executing
)

// claimOn is claim for a store whose saved answers may be on disk: a
// record it returns for a replay or a mismatch has its scope, request id and
// body in memory (a copy read back). An error is an index or a record that
// cannot be read back: whether the key was saved is unknown, so the request
// must neither run (a second charge) nor answer; it is the caller's to
// refuse.
// The read happens under the caller's lock, so that the key cannot change
// between the read and the claim.
func (s *KeyStore) claimOn(disk *spill.Store, key, scope, params string, now time.Time, window time.Duration) (*keyRec, ClaimResult, error) {
	if _, inMem := s.m[key]; !inMem && s.saved != nil {
		h := s.hash(key)
		p, ok, err := s.saved.Get(h)
		if err != nil {
			return nil, 0, err
		}
		if ok {
			rec, text, err := readKeyRecord(disk, spill.Packed(p).Ref())
			if err != nil {
				return nil, 0, err
			}
			if text == key {
				if s.offset(now)-rec.created < window {
					return rec, rec.against(fingerprint(scope, params)), nil
				}
				// Expired: claim starts a new request. A delete that
				// failed would leave the index untrusted: refused too.
				if err := s.saved.Delete(h); err != nil {
					return nil, 0, err
				}
			}
		}
	}
	e, res := s.claim(key, scope, params, now, window)
	if e.mem == nil && (res == ClaimReplay || res == ClaimMismatch) {
		rec, _, err := readKeyRecord(disk, e.ref)
		if err != nil {
			return nil, 0, err
		}
		return rec, res, nil
	}
	return e, res, nil
}

// claim looks key up among the records in memory and, when it is absent or
// expired, records it as executing so that a concurrent repeat sees it in
// use.
func (s *KeyStore) claim(key, scope, params string, now time.Time, window time.Duration) (*keyRec, ClaimResult) {
	at := s.offset(now)
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
		e = &keyRec{fp: fp, created: at, executing: true, mem: &keyMem{key: key, scope: strings.Clone(scope)}}
		s.m[key] = e
		return e, ClaimFresh
	}
	return e, e.against(fp)
}

// offset is now as a record keeps it.
func (s *KeyStore) offset(now time.Time) time.Duration {
	if s.base.IsZero() {
		s.base = now
	}
	return now.Sub(s.base)
}

// against is what a repeat with fingerprint fp gets from a key it found.
func (e *keyRec) against(fp keyPrint) ClaimResult {
	switch {
	case e.fp != fp:
		return ClaimMismatch
	case e.executing:
		return ClaimInUse
	}
	return ClaimReplay
}

// save records the first request's answer under the key: on disk at ref
// when spilled, and then indexed on disk by the key's hash unless another
// saved key holds that hash (or ref does not pack, or the index failed),
// else in memory.
func (s *KeyStore) save(disk *spill.Store, e *keyRec, status int, body []byte, requestID string, ref spill.Ref, spilled bool) {
	e.executing, e.status = false, int32(status)
	if !spilled {
		e.mem.body, e.mem.requestID = body, strings.Clone(requestID)
		return
	}
	key := e.mem.key
	if p, ok := ref.Pack(); ok && s.m[key] == e && s.index(disk) != nil {
		// A record kept in memory answers for its key whatever the index
		// says (claimOn looks in memory first): a failed index read or
		// write only costs this key its memory.
		h := s.hash(key)
		if added, err := s.saved.Add(h, uint64(p)); added && err == nil {
			delete(s.m, key)
			return
		}
	}
	e.ref, e.mem = ref, nil
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
