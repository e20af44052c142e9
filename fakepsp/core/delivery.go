package core

import (
	"io"
	"math"
	"net/http"
	"time"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// Delivery is one attempt to deliver an event to an endpoint.
type Delivery struct {
	EventID   string    `json:"event_id"`
	EventType string    `json:"event_type"`
	Endpoint  string    `json:"endpoint"`
	URL       string    `json:"url"`
	Attempt   int       `json:"attempt"`   // 1 for the first try of this copy
	Duplicate bool      `json:"duplicate"` // an extra copy from WebhookDuplicates
	Status    int       `json:"status"`    // 0 when the request itself failed
	Err       string    `json:"error,omitempty"`
	GaveUp    bool      `json:"gave_up"` // failed and past the schedule's horizon
	At        time.Time `json:"at"`      // when the answer (or the error) came
	Started   time.Time `json:"started"` // when the request was sent
	// Via says who sent this copy: "" for the endpoint's own schedule, else
	// the reason a harness gave to Send (a duplicate, a forged event).
	Via string `json:"via,omitempty"`
	// Signature is how the copy was signed: "valid" (the schedule's always
	// are), or what Send was asked to forge.
	Signature string `json:"signature"`
	// SignedAt is the signature's timestamp (unix s) when Send set one.
	SignedAt int64 `json:"signed_at,omitempty"`
}

// Schedule is the retry schedule of a failing webhook delivery: the
// n-th retry waits Base*Factor^(n-1), or Steps[n-1] when the PSP documents a
// table (the last step repeating), and no retry is scheduled beyond Horizon
// after the first attempt (summing the backoffs, so load cannot change the count).
type Schedule struct {
	Base    time.Duration // Stripe: 1 min
	Factor  float64       // Stripe: 2
	Horizon time.Duration // Stripe: 72 h (it retries for three days)
	// Steps, when set, are the waits before each retry in turn (Adyen's
	// 9 s, 9 s, 9 s, 2 min, 5 min ... 8 h); Base and Factor are unused.
	Steps []time.Duration
	// Timeout bounds one delivery attempt (Stripe: 10 s).
	Timeout time.Duration
}

// Backoff is the wait before retry n (1 for the first retry).
func (s Schedule) Backoff(n int) time.Duration {
	if len(s.Steps) > 0 {
		return s.Steps[min(n, len(s.Steps))-1]
	}
	return time.Duration(float64(s.Base) * math.Pow(s.Factor, float64(n-1)))
}

// How a copy of an event is signed, as Delivery.Signature records it. The
// engine's own schedule always signs SignValid; a harness asks a dialect
// for the others through its Send.
const (
	SignValid  = "valid"        // the endpoint secret, at SignedAt (default now)
	SignWrong  = "wrong-secret" // a well-formed signature made with another secret
	SignAbsent = "missing"      // no signature at all
)

// Event is what the engine needs of one event; the dialect's event type
// carries its payload and renders it.
type Event interface {
	EventID() string
	EventType() string
	FaultTarget() Target // what webhook faults match on
}

// Answer is what a receiver said to one delivery.
type Answer struct {
	Status int
	Body   []byte // its first 64 KiB
}

// Post sends one delivery and reads the answer (Answer.Body holds its first
// 64 KiB, enough for an acknowledgement such as Adyen's "[accepted]").
func Post(client *http.Client, req *http.Request) (Answer, error) {
	resp, err := client.Do(req)
	if err != nil {
		return Answer{}, err
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	_ = resp.Body.Close()
	return Answer{Status: resp.StatusCode, Body: body}, nil
}

// DeliveryLog keeps every delivery attempt, for tests and the control API,
// on disk (a spill.Log): a soak delivers thousands of events and its judge
// reads them once a round (issue 54). The zero DeliveryLog keeps them on a
// store of its own.
type DeliveryLog struct {
	diskLog[Delivery]
	changed chan struct{} // closed and replaced at every add
}

// NewDeliveryLog returns a log keeping its deliveries on s.
func NewDeliveryLog(s *spill.Store) *DeliveryLog {
	return &DeliveryLog{diskLog: diskLog[Delivery]{store: s}}
}

// Add logs d and wakes whoever waits on Added.
func (l *DeliveryLog) Add(d Delivery) {
	l.mu.Lock()
	l.logLocked().Add(d)
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
	l.mu.Unlock()
}

// Added returns a channel closed at the next delivery logged, so a harness
// acts the moment an answer arrives (a kill right after the ack).
func (l *DeliveryLog) Added() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.changed == nil {
		l.changed = make(chan struct{})
	}
	return l.changed
}

// All returns every delivery attempt so far, in order. When the log on disk
// cannot be read it returns those it could read and remembers the error for
// ReadErr.
func (l *DeliveryLog) All() []Delivery { return l.all("delivery log", "deliveries") }

// AllErr is All returning its read error instead of remembering it.
func (l *DeliveryLog) AllErr() ([]Delivery, error) { return l.allErr("delivery log", "deliveries") }
