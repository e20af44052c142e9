package fakepsp

import (
	"sync"
	"time"
)

// Call is one API request the PSP answered (or dropped), from its own log:
// the ground truth of how often a client called, whatever the client
// counts. A replay under an idempotency key is a call too.
type Call struct {
	Endpoint       string    `json:"endpoint"` // the route, e.g. "POST /v1/payment_intents"
	Path           string    `json:"path"`
	IdempotencyKey string    `json:"idempotency_key,omitempty"`
	Status         int       `json:"status"`
	Replayed       bool      `json:"replayed,omitempty"`
	Executed       bool      `json:"executed,omitempty"` // execution began (not a replay, not refused before it)
	At             time.Time `json:"at"`
}

type callLog struct {
	mu    sync.Mutex
	calls []Call
}

func (l *callLog) add(c *call, status int, replayed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, Call{Endpoint: c.endpoint, Path: c.r.URL.Path, IdempotencyKey: c.idemKey,
		Status: status, Replayed: replayed, Executed: c.started, At: time.Now()})
}

// Calls returns the PSP's log of API calls, in the order they were answered.
func (p *PSP) Calls() []Call {
	p.calls.mu.Lock()
	defer p.calls.mu.Unlock()
	return append([]Call(nil), p.calls.calls...)
}

// CallsWithKey returns the calls that carried the idempotency key.
func (p *PSP) CallsWithKey(key string) []Call {
	var out []Call
	for _, c := range p.Calls() {
		if c.IdempotencyKey == key {
			out = append(out, c)
		}
	}
	return out
}
