package core

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"sync/atomic"
	"time"
)

// Freedoms are the delivery freedoms a PSP takes with webhooks and a
// handler must survive: the same event delivered more than once, and events
// delivered in another order than they were raised. Each is a share of the
// events the schedule delivers (0: never), drawn per event from Seed and
// the event's place in its endpoint's schedule, so a serial run draws the
// same events again. Events a Hold released are not drawn: the harness that
// held them chose their order and copies.
type Freedoms struct {
	// Duplicates: this share of events is delivered once more, at once,
	// after its first acknowledged delivery.
	Duplicates float64
	// OutOfOrder: this share of events is delivered late, by between half
	// of Late and all of it, so the events raised meanwhile (the others of
	// the same change, when the PSP sends them at once) overtake it.
	OutOfOrder float64
	Late       time.Duration // default DefaultLate
	Seed       uint64
}

// DefaultLate is Freedoms.Late when it is not set.
const DefaultLate = 300 * time.Millisecond

// Valid refuses shares outside [0, 1] and a negative lateness.
func (f Freedoms) Valid() error {
	if f.Duplicates < 0 || f.Duplicates > 1 || f.OutOfOrder < 0 || f.OutOfOrder > 1 || f.Late < 0 {
		return fmt.Errorf("fakepsp: webhook freedoms must be shares between 0 and 1 and a lateness not negative, got duplicates %v, out of order %v, late %v", f.Duplicates, f.OutOfOrder, f.Late)
	}
	return nil
}

// Lateness is how late the n-th event drawn out of order is delivered.
func (f Freedoms) Lateness(n uint64) time.Duration {
	late := f.Late
	if late <= 0 {
		late = DefaultLate
	}
	half := late / 2
	return half + time.Duration(f.hash("late", n)%uint64(late-half+1))
}

// Draw says whether the n-th event of an endpoint's schedule takes the
// freedom named what, whose share is share. The endpoint's own id is left
// out: it is random, and the draw must follow the seed.
func (f Freedoms) Draw(what string, n uint64, share float64) bool {
	if share <= 0 {
		return false
	}
	return float64(f.hash(what, n)>>11)/float64(1<<53) < share
}

func (f Freedoms) hash(what string, n uint64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], f.Seed)
	h.Write(b[:])
	h.Write([]byte(what))
	binary.LittleEndian.PutUint64(b[:], n)
	h.Write(b[:])
	return h.Sum64()
}

// FreedomCounts says how often the freedoms fired.
type FreedomCounts struct {
	Events     int64 `json:"events"`     // events the schedule drew for
	Duplicated int64 `json:"duplicated"` // delivered once more
	Reordered  int64 `json:"reordered"`  // delivered late
}

// FreedomCounter counts how often the freedoms fired, over every worker
// given it (a PSP's, across its endpoints).
type FreedomCounter struct{ events, duplicated, reordered atomic.Int64 }

// Counts says how many events the schedule drew for and how many of them
// the freedoms took.
func (c *FreedomCounter) Counts() FreedomCounts {
	return FreedomCounts{Events: c.events.Load(), Duplicated: c.duplicated.Load(), Reordered: c.reordered.Load()}
}
