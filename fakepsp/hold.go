package fakepsp

import (
	"encoding/json"
	"slices"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// WebhookEvent is one event as a harness sees it: what it is about and the
// exact bytes every delivery of it sends.
type WebhookEvent struct {
	ID            string          `json:"id"`
	Type          string          `json:"type"`
	PaymentIntent string          `json:"payment_intent,omitempty"`
	Amount        int64           `json:"amount"` // the PaymentIntent's amount
	Raw           json.RawMessage `json:"-"`
	// Err says why Raw could not be read back from the PSP's store on
	// disk (Raw is then nil).
	Err error `json:"-"`
}

func webhookEvent(e core.EventInfo) WebhookEvent {
	return WebhookEvent{ID: e.ID, Type: e.Type, PaymentIntent: e.Payment, Amount: e.Amount, Raw: e.Raw, Err: e.Err}
}

// Hold keeps matching events out of their endpoints' delivery schedule until
// they are released, so a harness decides when, in which order and how many
// times the handler sees them (core.Hold). Events are matched when raised.
type Hold struct {
	h   *core.Hold
	api core.Server
}

// HoldWebhooks starts holding every event match accepts.
func (p *PSP) HoldWebhooks(match func(WebhookEvent) bool) *Hold {
	h := &Hold{api: p.api}
	h.h = core.NewHold(func(e core.Event) bool { return match(webhookEvent(p.api.Describe(e))) }, func() {
		p.mu.Lock()
		p.holds = slices.DeleteFunc(p.holds, func(x *Hold) bool { return x == h })
		p.mu.Unlock()
	})
	p.mu.Lock()
	p.holds = append(p.holds, h)
	p.mu.Unlock()
	return h
}

// Events lists the held events, each once, in the order they were raised.
func (h *Hold) Events() []WebhookEvent {
	var out []WebhookEvent
	for _, e := range h.h.Events() {
		out = append(out, webhookEvent(h.api.Describe(e)))
	}
	return out
}

// Release hands the held events to their schedules, those named in first
// first, in that order, then the rest in the order they were raised; the
// hold stops holding.
func (h *Hold) Release(first ...string) { h.h.Release(first...) }

// ReleaseOne hands one held event to its schedules and keeps holding the rest.
func (h *Hold) ReleaseOne(id string) { h.h.ReleaseOne(id) }

// WebhookEvents lists the events raised about one PaymentIntent, in order.
func (p *PSP) WebhookEvents(paymentIntent string) []WebhookEvent {
	var out []WebhookEvent
	for _, e := range p.api.EventsAbout(paymentIntent) {
		out = append(out, webhookEvent(e))
	}
	return out
}

// PaymentIntentOfCharge names the PaymentIntent of a charge id ("ch_..."),
// as the ground truth's charge ops carry it; "" when none.
func (p *PSP) PaymentIntentOfCharge(chargeID string) string { return p.api.PaymentOfCharge(chargeID) }
