package fakepsp

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"sync/atomic"
	"time"
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
	// OutOfOrder: this share of events is delivered late, by between half
	// of Late and all of it, so the events raised meanwhile (the others of
	// the same change, as Stripe sends them at once) overtake it.
	OutOfOrder float64
	Late       time.Duration // default DefaultWebhookLate
	Seed       uint64
}

// Default shares of the freedoms in a run and in `idemcheck psp`: Stripe
// sends the events one change raises concurrently, so two of them arrive
// in either order about as often as not; duplicates are rarer.
const (
	DefaultWebhookDuplicates = 0.25
	DefaultWebhookOutOfOrder = 0.5
	DefaultWebhookLate       = 300 * time.Millisecond
)

// lateness is how late the n-th event drawn out of order is delivered.
func (p *PSP) lateness(n uint64) time.Duration {
	late := p.cfg.WebhookFreedoms.Late
	if late <= 0 {
		late = DefaultWebhookLate
	}
	half := late / 2
	return half + time.Duration(p.hashFreedom("late", n)%uint64(late-half+1))
}

// PendingDeliveries counts the copies of the events ids that some endpoint's
// schedule still has to send (queued, late, retrying or being sent): a
// judge of what they caused waits for none.
func (p *PSP) PendingDeliveries(ids []string) int {
	p.mu.Lock()
	var ws []*webhookWorker
	for _, acct := range p.accounts {
		for _, ep := range acct.endpoints {
			ws = append(ws, ep.w)
		}
	}
	p.mu.Unlock()
	n := 0
	for _, w := range ws {
		n += w.pending(ids)
	}
	return n
}

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
	late := f.Late
	if late <= 0 {
		late = DefaultWebhookLate
	}
	order := fmt.Sprintf("%.0f%% of the events are delivered %v to %v late, so the events raised meanwhile overtake them, as Stripe does not promise order (%s turns it off)", 100*f.OutOfOrder, late/2, late, offOrder)
	if f.OutOfOrder <= 0 {
		order = fmt.Sprintf("events arrive in the order they were raised, kinder than Stripe, which does not promise order (%s)", offOrder)
	}
	return "webhooks: " + dup + "; " + order + "; drawn per event from the seed"
}

func (f WebhookFreedoms) valid() error {
	if f.Duplicates < 0 || f.Duplicates > 1 || f.OutOfOrder < 0 || f.OutOfOrder > 1 || f.Late < 0 {
		return fmt.Errorf("fakepsp: webhook freedoms must be shares between 0 and 1 and a lateness not negative, got duplicates %v, out of order %v, late %v", f.Duplicates, f.OutOfOrder, f.Late)
	}
	return nil
}

// FreedomCounts says how often the freedoms fired.
type FreedomCounts struct {
	Events     int64 `json:"events"`     // events the schedule drew for
	Duplicated int64 `json:"duplicated"` // delivered once more
	Reordered  int64 `json:"reordered"`  // delivered late
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
	return float64(p.hashFreedom(what, n)>>11)/float64(1<<53) < share
}

func (p *PSP) hashFreedom(what string, n uint64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], p.cfg.WebhookFreedoms.Seed)
	h.Write(b[:])
	h.Write([]byte(what))
	binary.LittleEndian.PutUint64(b[:], n)
	h.Write(b[:])
	return h.Sum64()
}
