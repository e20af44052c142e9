package fakepsp

import (
	"fmt"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// WebhookFreedoms are the delivery freedoms Stripe documents and a handler
// must survive: the same event delivered more than once, and events
// delivered in another order than they were raised. Each is a share of the
// events the schedule delivers (0: never, kinder than Stripe), drawn per
// event from Seed and the event's place in its endpoint's schedule, so a
// serial run draws the same events again. Events a Hold released are not
// drawn: the harness that held them chose their order and copies. The
// fields, and the engine that takes the freedoms, are core.Freedoms'.
type WebhookFreedoms core.Freedoms

// Default shares of the freedoms in a run and in `idemcheck psp`: Stripe
// sends the events one change raises concurrently, so two of them arrive
// in either order about as often as not; duplicates are rarer.
const (
	DefaultWebhookDuplicates = 0.25
	DefaultWebhookOutOfOrder = 0.5
	DefaultWebhookLate       = core.DefaultLate
)

// PendingDeliveries counts the copies of the events ids that some endpoint's
// schedule still has to send (queued, late, retrying or being sent): a
// judge of what they caused waits for none.
func (p *PSP) PendingDeliveries(ids []string) int {
	n := 0
	for _, w := range p.api.Workers() {
		n += w.Pending(ids)
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

func (f WebhookFreedoms) valid() error { return core.Freedoms(f).Valid() }

// FreedomCounts says how often the freedoms fired (core.FreedomCounts).
type FreedomCounts = core.FreedomCounts

// WebhookFreedomCounts says how many events the schedule drew for and how
// many of them the freedoms took.
func (p *PSP) WebhookFreedomCounts() FreedomCounts { return p.freedoms.Counts() }
