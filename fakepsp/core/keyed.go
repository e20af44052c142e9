package core

import (
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
	Key    string
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
	e, res := k.Store.Claim(k.Key, k.Scope, k.Fingerprint, k.Now(), k.Window)
	saved, first := *e, e.Scope
	k.Lock.Unlock()
	switch res {
	case ClaimReplay:
		if saved.Body == nil && saved.BodyRef.Len() > 0 {
			body, err := k.Spill.Get(saved.BodyRef)
			if err != nil {
				return KeyOutcome{Refusal: &Refusal{Kind: RefuseStorage, Key: k.Key,
					Detail: "the saved answer of idempotency key " + k.Key + " cannot be read back: " + err.Error()}}
			}
			saved.Body = body
		}
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
	if began && k.Spill != nil && len(body) > 0 {
		var err error
		ref, err = k.Spill.Put(body)
		spilled = err == nil
	}
	k.Lock.Lock()
	if began {
		k.Store.Save(e, status, body, requestID)
		if spilled {
			e.Body, e.BodyRef = nil, ref
		}
	} else {
		k.Store.Release(k.Key, e)
	}
	k.Lock.Unlock()
	return KeyOutcome{Status: status, Body: body}
}
