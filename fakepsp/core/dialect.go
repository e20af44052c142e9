package core

import (
	"context"
	"net/http"
	"time"
)

// Dialect is one PSP's wire over the core: what a client and a webhook
// receiver see of that PSP, and nothing of its money. The core keeps the
// money (keys, faults, ground truth, the delivery engine); a dialect says
// how it looks on the wire. It is sized for the PSPs issue 52 names:
//
//   - Stripe: form bodies, Idempotency-Key (255 characters, 24 h), errors as
//     {"error":{type,code,...}}, one event per delivery signed in a
//     Stripe-Signature header, any 2xx received.
//   - Adyen: JSON bodies, Idempotency-Key (64 characters, kept at least 7
//     days), errors as {status,errorCode,message,errorType,pspReference},
//     notifications in a JSON batch with an HMAC-SHA256 (hex key) inside each
//     item, received only when the answer is "[accepted]".
//   - Checkout.com: JSON bodies, Cko-Idempotency-Key (24 h), a Cko-Signature
//     header over the raw body.
//
// A dialect is one folder, fakepsp/<name>, that calls Register in an init;
// fakepsp's dialects.go imports it (the one registry line). Its folder holds
// its routes and handlers too (Serve): a handler parses a request into a
// core operation (Ops) and renders the outcome.
type Dialect interface {
	// Name is how a configuration picks the dialect ("stripe").
	Name() string
	// Keys are its idempotency-key rules.
	Keys() KeyRules
	// Credential reads the API key a request authenticates with.
	Credential(r *http.Request) (key string, ok bool)
	// NewCredential makes a fresh API key in the PSP's format.
	NewCredential() string
	// Refuse renders a refusal the core decided in the PSP's error shape.
	Refuse(Refusal) Reply
	// Webhooks is its webhook wire.
	Webhooks() WebhookWire
	// Serve is its API (routes, objects, rendering) over the facade's
	// shared parts (host.go).
	Serve(Host) Server
}

// WebhookWire is how a dialect's PSP sends one delivery and what answer it
// counts as received. The core decides when, how often and in which order.
type WebhookWire interface {
	// NewSecret makes a fresh signing secret in the PSP's format; a forged
	// delivery is signed with one the receiver does not know.
	NewSecret() string
	// Request is one delivery of body (the event rendered by the dialect) to
	// url, signed with secret at at as the PSP signs, in a header or inside
	// the body; an empty secret sends it unsigned.
	Request(ctx context.Context, url string, body []byte, secret string, at time.Time) (*http.Request, error)
	// Accepted says whether the receiver's answer counts as received.
	Accepted(Answer) bool
}

// RefusalKind names a refusal the core decides before (or instead of)
// running a request; the dialect gives it its PSP's status and body.
type RefusalKind int

// The refusals.
const (
	RefuseNoCredential  RefusalKind = iota + 1 // no API key
	RefuseBadCredential                        // an API key of no account (Refusal.Key)
	RefuseRateLimited                          // a rate limit or the RateLimit fault
	RefuseInternal                             // an injected server error
	RefuseKeyTooLong                           // an idempotency key over KeyRules.MaxLen
	RefuseKeyMismatch                          // a key reused with another scope or parameters
	RefuseKeyInUse                             // a key whose first request still runs
	// RefuseStorage: what the PSP kept on disk (Spill) could not be read
	// back, so it answers a 500 naming the failure (Refusal.Detail) rather
	// than a body it cannot vouch for.
	RefuseStorage
)

// Refusal is one refusal with what its message needs.
type Refusal struct {
	Kind RefusalKind
	// Key is the idempotency key, or the bad credential for RefuseBadCredential.
	Key string
	// Scope and FirstScope are this request's scope and the one the key was
	// first used with (RefuseKeyMismatch).
	Scope, FirstScope string
	// Detail says what failed (RefuseStorage).
	Detail string
}

// Reply is a status and a JSON-able body.
type Reply struct {
	Status int
	Body   any
}
