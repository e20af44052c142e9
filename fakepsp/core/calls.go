package core

import (
	"sync"
	"time"
)

// Call is one API request the PSP answered (or dropped), from its own log:
// the ground truth of how often a client called, whatever the client
// counts. A replay under an idempotency key is a call too.
type Call struct {
	Endpoint       string    `json:"endpoint"` // the route, e.g. "POST /v1/payment_intents" (Stripe)
	Path           string    `json:"path"`
	IdempotencyKey string    `json:"idempotency_key,omitempty"`
	Status         int       `json:"status"`
	Replayed       bool      `json:"replayed,omitempty"`
	Executed       bool      `json:"executed,omitempty"` // execution began (not a replay, not refused before it)
	At             time.Time `json:"at"`
}

// CallLog keeps every Call, in the order they were answered.
type CallLog struct {
	mu    sync.Mutex
	calls []Call
}

// Add logs c, stamping At under the lock so that At never goes back along
// the log.
func (l *CallLog) Add(c Call) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c.At = time.Now()
	l.calls = append(l.calls, c)
}

// All returns the calls so far.
func (l *CallLog) All() []Call {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Call(nil), l.calls...)
}
