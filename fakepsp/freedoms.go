package fakepsp

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"sync/atomic"
)

// WebhookFreedoms are the delivery freedoms Stripe documents and a handler
// must survive: the same event delivered more than once, and events
// delivered in another order than they were raised. Each is a share of the
// events the schedule delivers (0: never, kinder than Stripe), drawn per
// event from Seed and the event's place in its endpoint's schedule, so a
// serial run draws the same events again. Events a Hold released are not
// drawn: the harness that held them chose their order and copies.
type WebhookFreedoms struct {
	// Duplicates: this share of events is delivered once more, at once,
	// after its first acknowledged delivery.
	Duplicates float64
	// OutOfOrder: this share of events is held back until the next event
	// for the same endpoint overtakes it (or one schedule Base has passed).
	OutOfOrder float64
	Seed       uint64
}

// Default shares of the freedoms in a run and in `idemcheck psp`: Stripe
// sends the events one change raises concurrently, so two of them arrive
// in either order about as often as not; duplicates are rarer.
const (
	DefaultWebhookDuplicates = 0.25
	DefaultWebhookOutOfOrder = 0.5
)

// Freedoms is the default share of each freedom that is on.
func Freedoms(duplicates, outOfOrder bool, seed uint64) WebhookFreedoms {
	f := WebhookFreedoms{Seed: seed}
	if duplicates {
		f.Duplicates = DefaultWebhookDuplicates
	}
	if outOfOrder {
		f.OutOfOrder = DefaultWebhookOutOfOrder
	}
	return f
}

// Words says which freedoms are on, naming offDup and offOrder, the knobs
// that turn each off (or on).
func (f WebhookFreedoms) Words(offDup, offOrder string) string {
	dup := fmt.Sprintf("%.0f%% of the events are delivered a second time after their first is acknowledged, as Stripe may (%s turns it off)", 100*f.Duplicates, offDup)
	if f.Duplicates <= 0 {
		dup = fmt.Sprintf("no event is delivered twice, kinder than Stripe, whose delivery is at least once (%s)", offDup)
	}
	order := fmt.Sprintf("%.0f%% of the events are held until the next one overtakes them, as Stripe does not promise order (%s turns it off)", 100*f.OutOfOrder, offOrder)
	if f.OutOfOrder <= 0 {
		order = fmt.Sprintf("events arrive in the order they were raised, kinder than Stripe, which does not promise order (%s)", offOrder)
	}
	return "webhooks: " + dup + "; " + order + "; drawn per event from the seed"
}

func (f WebhookFreedoms) valid() error {
	if f.Duplicates < 0 || f.Duplicates > 1 || f.OutOfOrder < 0 || f.OutOfOrder > 1 {
		return fmt.Errorf("fakepsp: webhook freedoms must be shares between 0 and 1, got duplicates %v, out of order %v", f.Duplicates, f.OutOfOrder)
	}
	return nil
}

// FreedomCounts says how often the freedoms fired.
type FreedomCounts struct {
	Events     int64 `json:"events"`     // events the schedule drew for
	Duplicated int64 `json:"duplicated"` // delivered once more
	Reordered  int64 `json:"reordered"`  // held until the next overtook them
}

type freedomCounter struct{ events, duplicated, reordered atomic.Int64 }

// WebhookFreedomCounts says how many events the schedule drew for and how
// many of them the freedoms took.
func (p *PSP) WebhookFreedomCounts() FreedomCounts {
	c := &p.freedoms
	return FreedomCounts{Events: c.events.Load(), Duplicated: c.duplicated.Load(), Reordered: c.reordered.Load()}
}

// drawFreedom says whether the n-th event of an endpoint's schedule takes
// the freedom named what, whose share is share. The endpoint's own id is
// left out: it is random, and the draw must follow the seed.
func (p *PSP) drawFreedom(what string, n uint64, share float64) bool {
	if share <= 0 {
		return false
	}
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], p.cfg.WebhookFreedoms.Seed)
	h.Write(b[:])
	h.Write([]byte(what))
	binary.LittleEndian.PutUint64(b[:], n)
	h.Write(b[:])
	return float64(h.Sum64()>>11)/float64(1<<53) < share
}
