package core

import (
	"time"

	"github.com/idemcheck/idemcheck/internal/spill"
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

// CallLog keeps every Call, in the order they were answered, on disk (a
// spill.Log): a soak answers tens of thousands of calls and reads them
// rarely (issue 54). The zero CallLog keeps them on a store of its own.
type CallLog struct{ diskLog[Call] }

// NewCallLog returns a log keeping its calls on s.
func NewCallLog(s *spill.Store) *CallLog { return &CallLog{diskLog[Call]{store: s}} }

// Add logs c, stamping At under the lock so that At never goes back along
// the log.
func (l *CallLog) Add(c Call) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c.At = time.Now()
	l.logLocked().Add(c)
}

// All returns the calls so far. When the log on disk cannot be read it
// returns those it could read and remembers the error for ReadErr.
func (l *CallLog) All() []Call { return l.all("call log", "calls") }

// AllErr is All returning its read error instead of remembering it.
func (l *CallLog) AllErr() ([]Call, error) { return l.allErr("call log", "calls") }
