package core

import (
	"errors"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// Keyed is one request under an idempotency key, taken through the rules
// every PSP shares, in the order Stripe documents them and Adyen and
// Checkout.com follow: a key over the dialect's limit is refused before
// anything; a key seen inside the window answers its saved result (the same
// scope and parameters), a mismatch (others), or in use (its first request
// still runs); otherwise the request runs, and its answer is saved once its
// execution began, or the key forgotten when it was refused before that.
type Keyed struct {
	Rules  KeyRules
	Window time.Duration // the PSP's (KeyRules.Window unless configured)
	Store  *KeyStore
	Lock   sync.Locker      // guards Store
	Spill  *spill.Store     // holds saved answers' bodies; nil: in memory
	Now    func() time.Time // called under Lock
	// Key is kept by Store as given while its request executes (and when
	// its answer stays in memory): the caller's own copy (cloned), for a
	// key sliced from a header line would keep the whole line alive.
	Key string
	// Scope and Fingerprint are the dialect's: what the key is bound to and
	// the request's canonical parameters.
	Scope, Fingerprint string
}

// KeyOutcome is what became of a keyed request: exactly one of a refusal
// to answer in the dialect's shape, a saved answer to replay, or the answer
// of the request that ran.
type KeyOutcome struct {
	Refusal *Refusal
	Replay  *KeyEntry // a copy
	Status  int
	Body    []byte
}

// Do applies the rules; run executes the request and says whether its
// execution began (and so whether its answer is saved).
func (k Keyed) Do(run func() (status int, body []byte, requestID string, began bool)) KeyOutcome {
	if k.Rules.TooLong(k.Key) {
		return KeyOutcome{Refusal: &Refusal{Kind: RefuseKeyTooLong, Key: k.Key}}
	}
	k.Lock.Lock()
	e, res, err := k.Store.claimOn(k.Spill, k.Key, k.Scope, k.Fingerprint, k.Now(), k.Window)
	var saved KeyEntry
	first := ""
	if err == nil && e.mem != nil {
		saved = KeyEntry{Status: int(e.status), Body: e.mem.body, RequestID: e.mem.requestID}
		first = e.mem.scope
	}
	k.Lock.Unlock()
	if err != nil {
		return KeyOutcome{Refusal: &Refusal{Kind: RefuseStorage, Key: k.Key,
			Detail: "the saved answer of idempotency key " + k.Key + " cannot be read back: " + err.Error()}}
	}
	switch res {
	case ClaimReplay:
		return KeyOutcome{Replay: &saved}
	case ClaimMismatch:
		return KeyOutcome{Refusal: &Refusal{Kind: RefuseKeyMismatch, Key: k.Key, Scope: k.Scope, FirstScope: first}}
	case ClaimInUse:
		return KeyOutcome{Refusal: &Refusal{Kind: RefuseKeyInUse, Key: k.Key}}
	}
	status, body, requestID, began := run()
	// Written before the lock: a replay finds the answer on disk or, when
	// writing failed, still in memory; either way the same bytes.
	var ref spill.Ref
	spilled := false
	if began && k.Spill != nil {
		ref, err = k.Spill.Put(keyRecordBlob(k.Key, e.fp, e.created, status, first, requestID, body))
		spilled = err == nil
	}
	k.Lock.Lock()
	if began {
		k.Store.save(k.Spill, e, status, body, requestID, ref, spilled)
	} else {
		k.Store.release(k.Key, e)
	}
	k.Lock.Unlock()
	return KeyOutcome{Status: status, Body: body}
}

// readKeyRecord reads a saved key's record from disk; what fails is the
// caller's error to answer, never an empty answer.
func readKeyRecord(disk *spill.Store, ref spill.Ref) (*keyRec, string, error) {
	if disk == nil {
		return nil, "", errors.New("the PSP keeps no store on disk")
	}
	b, err := disk.Get(ref)
	if err != nil {
		return nil, "", err
	}
	return parseKeyRecord(b)
}
