package core

import (
	"slices"
	"sync"
)

// Hold keeps matching events out of their endpoints' delivery schedule until
// they are released, so a harness decides when, in which order and how many
// times the handler sees them. Events are matched when they are raised.
type Hold struct {
	match      func(Event) bool
	unregister func() // the PSP stops offering it events

	mu     sync.Mutex
	held   []heldEvent
	closed bool
}

type heldEvent struct {
	ev Event
	w  *Worker
}

// NewHold holds every event match accepts once the PSP offers them to it
// (Take); unregister is called when Release ends the hold.
func NewHold(match func(Event) bool, unregister func()) *Hold {
	return &Hold{match: match, unregister: unregister}
}

// Take holds ev for w when h matches it; it reports whether it did.
func (h *Hold) Take(ev Event, w *Worker) bool {
	if !h.match(ev) {
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
func (h *Hold) Events() []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Event
	for _, he := range h.held {
		if !slices.ContainsFunc(out, func(e Event) bool { return e.EventID() == he.ev.EventID() }) {
			out = append(out, he.ev)
		}
	}
	return out
}

// Release hands the held events to their schedules, those named in first
// first, in that order, then the rest in the order they were raised; the
// hold stops holding. Each worker sends one attempt at a time, earliest first,
// so the handler sees them in this order (retries aside).
func (h *Hold) Release(first ...string) {
	h.unregister()
	h.mu.Lock()
	held := h.held
	h.held, h.closed = nil, true
	h.mu.Unlock()
	rank := func(he heldEvent) int {
		if i := slices.Index(first, he.ev.EventID()); i >= 0 {
			return i
		}
		return len(first)
	}
	slices.SortStableFunc(held, func(a, b heldEvent) int { return rank(a) - rank(b) })
	for _, he := range held {
		he.w.enqueue(he.ev, false)
	}
}

// ReleaseOne hands one held event to its schedules and keeps holding the rest.
func (h *Hold) ReleaseOne(id string) {
	h.mu.Lock()
	var out []heldEvent
	h.held = slices.DeleteFunc(h.held, func(he heldEvent) bool {
		if he.ev.EventID() == id {
			out = append(out, he)
			return true
		}
		return false
	})
	h.mu.Unlock()
	for _, he := range out {
		he.w.enqueue(he.ev, false)
	}
}
