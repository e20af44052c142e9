package fakepsp

import (
	"encoding/json"
	"slices"
	"sync"

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
}

func (ev *event) public() WebhookEvent {
	return WebhookEvent{ID: ev.id, Type: ev.typ, PaymentIntent: ev.pi, Amount: ev.piAmount, Raw: ev.raw}
}

// Hold keeps matching events out of their endpoints' delivery schedule until
// they are released, so a harness decides when, in which order and how many
// times the handler sees them. Events are matched when they are raised.
type Hold struct {
	p     *PSP
	match func(WebhookEvent) bool

	mu     sync.Mutex
	held   []heldEvent
	closed bool
}

type heldEvent struct {
	ev *event
	w  *core.Worker
}

// HoldWebhooks starts holding every event match accepts.
func (p *PSP) HoldWebhooks(match func(WebhookEvent) bool) *Hold {
	h := &Hold{p: p, match: match}
	p.mu.Lock()
	p.holds = append(p.holds, h)
	p.mu.Unlock()
	return h
}

// take holds ev for w when h matches it; it reports whether it did.
func (h *Hold) take(ev *event, w *core.Worker) bool {
	if !h.match(ev.public()) {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.held = append(h.held, heldEvent{ev: ev, w: w})
	return true
}

// Events lists the held events, each once, in the order they were raised.
func (h *Hold) Events() []WebhookEvent {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []WebhookEvent
	for _, he := range h.held {
		if !slices.ContainsFunc(out, func(e WebhookEvent) bool { return e.ID == he.ev.id }) {
			out = append(out, he.ev.public())
		}
	}
	return out
}

// Release hands the held events to their schedules, those named in first
// first, in that order, then the rest in the order they were raised; the
// hold stops holding. Each worker sends one attempt at a time, earliest first,
// so the handler sees them in this order (retries aside).
func (h *Hold) Release(first ...string) {
	h.p.mu.Lock()
	h.p.holds = slices.DeleteFunc(h.p.holds, func(x *Hold) bool { return x == h })
	h.p.mu.Unlock()
	h.mu.Lock()
	held := h.held
	h.held, h.closed = nil, true
	h.mu.Unlock()
	rank := func(he heldEvent) int {
		if i := slices.Index(first, he.ev.id); i >= 0 {
			return i
		}
		return len(first)
	}
	slices.SortStableFunc(held, func(a, b heldEvent) int { return rank(a) - rank(b) })
	for _, he := range held {
		he.w.Enqueue(he.ev)
	}
}

// ReleaseOne hands one held event to its schedules and keeps holding the rest.
func (h *Hold) ReleaseOne(id string) {
	h.mu.Lock()
	var out []heldEvent
	h.held = slices.DeleteFunc(h.held, func(he heldEvent) bool {
		if he.ev.id == id {
			out = append(out, he)
			return true
		}
		return false
	})
	h.mu.Unlock()
	for _, he := range out {
		he.w.Enqueue(he.ev)
	}
}

// WebhookEvents lists the events raised about one PaymentIntent, in order.
func (p *PSP) WebhookEvents(paymentIntent string) []WebhookEvent {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []WebhookEvent
	for _, acct := range p.accounts {
		for _, ev := range acct.events {
			if ev.pi == paymentIntent {
				out = append(out, ev.public())
			}
		}
	}
	return out
}

// PaymentIntentOfCharge names the PaymentIntent of a charge id ("ch_..."),
// as the ground truth's charge ops carry it; "" when none.
func (p *PSP) PaymentIntentOfCharge(chargeID string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, acct := range p.accounts {
		if pi := acct.charges[chargeID]; pi != nil {
			return pi.id
		}
	}
	return ""
}

func (p *PSP) eventByID(id string) *event {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, acct := range p.accounts {
		if ev := acct.eventByID[id]; ev != nil {
			return ev
		}
	}
	return nil
}
