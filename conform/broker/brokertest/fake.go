// Package brokertest is a broker.Broker with no server behind it, for unit
// tests of what the queue checks decide and say on a broker's word.
package brokertest

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/conform/broker"
)

// Reading is one answer of Ready.
type Reading struct {
	broker.Readiness
	Err error
}

// Fake answers from its fields. Ready returns Readings in turn, the last
// one again once they run out.
type Fake struct {
	C        broker.Caps
	W        broker.Endpoint
	Readings []Reading
	// PlaceOf is Place; nil: a broker that names its records ("message
	// id m-1", short "m-1").
	PlaceOf func(broker.Pos) broker.Place

	mu       sync.Mutex
	readings int
	produced []broker.Record
	closed   bool
}

func (f *Fake) Caps() broker.Caps      { return f.C }
func (f *Fake) Where() broker.Endpoint { return f.W }
func (f *Fake) Describe() string       { return "a fake broker" }

// Close notes that it was called (Closed).
func (f *Fake) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
}

// Closed says whether Close was called.
func (f *Fake) Closed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// Place is PlaceOf(p), else the record's id.
func (f *Fake) Place(p broker.Pos) broker.Place {
	if f.PlaceOf != nil {
		return f.PlaceOf(p)
	}
	return broker.Place{Long: "message id " + p.ID, Short: p.ID}
}

// Produce stores each record at offset n on its lane, with id
// m-<n+1>, n counting the records produced before it.
func (f *Fake) Produce(_ context.Context, recs []*broker.Record) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range recs {
		n := len(f.produced)
		r.At = broker.Pos{Lane: r.Lane, Offset: int64(n), ID: fmt.Sprintf("m-%d", n+1)}
		f.produced = append(f.produced, *r)
	}
	return nil
}

// Produced are copies of the records Produce took, in order.
func (f *Fake) Produced() []broker.Record {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]broker.Record(nil), f.produced...)
}

func (f *Fake) Acked(context.Context) (broker.Acked, error) { return broker.Offsets{}, nil }
func (f *Fake) Group(context.Context) (broker.Group, error) { return broker.Group{}, nil }

// Ready returns the next reading; Readings counts the calls.
func (f *Fake) Ready(context.Context, int) (broker.Readiness, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.Readings) == 0 {
		return broker.Readiness{}, nil
	}
	r := f.Readings[min(f.readings, len(f.Readings)-1)]
	f.readings++
	return r.Readiness, r.Err
}

// ReadyCalls is how many times Ready was read.
func (f *Fake) ReadyCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.readings
}

var _ broker.Broker = (*Fake)(nil)

// Dedup is a Fake with a dedup window of Window (broker.Deduper).
type Dedup struct {
	*Fake
	Window time.Duration
}

func (d Dedup) DedupWindow() time.Duration { return d.Window }

// Worded is a Fake that says its own words (broker.Worder).
type Worded struct {
	*Fake
	Said broker.Words
}

func (w Worded) Words() broker.Words { return w.Said }
