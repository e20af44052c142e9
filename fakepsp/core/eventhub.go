package core

import "slices"

// HubEvent is a raised event as a dialect keeps it: the engine's Event and
// what a harness sees of it.
type HubEvent interface {
	Event
	Info() EventInfo
}

// HubEndpoint is one webhook receiver of an account.
type HubEndpoint struct {
	ID, URL string
	// Events are the event types it receives; none or "*": every one.
	Events []string
	Worker *Worker
}

func (ep *HubEndpoint) wants(typ string) bool {
	return len(ep.Events) == 0 || slices.Contains(ep.Events, "*") || slices.Contains(ep.Events, typ)
}

// EventHub is one account's raised events, in order, and its webhook
// endpoints: the record a dialect's Server reads for a harness (Event,
// EventsAbout, Workers). The dialect guards it with the host's lock.
type EventHub struct {
	events    []HubEvent
	byID      map[string]HubEvent
	endpoints []*HubEndpoint
}

// Add logs e and returns the workers of the endpoints that receive it,
// for the dialect to hand it to (Host.Dispatch) once the lock is released.
func (h *EventHub) Add(e HubEvent) []*Worker {
	if h.byID == nil {
		h.byID = map[string]HubEvent{}
	}
	h.events = append(h.events, e)
	h.byID[e.EventID()] = e
	var ws []*Worker
	for _, ep := range h.endpoints {
		if ep.wants(e.EventType()) {
			ws = append(ws, ep.Worker)
		}
	}
	return ws
}

// Event is a raised event by id.
func (h *EventHub) Event(id string) (EventInfo, bool) {
	if e := h.byID[id]; e != nil {
		return e.Info(), true
	}
	return EventInfo{}, false
}

// About lists the events raised about one payment, in order.
func (h *EventHub) About(payment string) []EventInfo {
	var out []EventInfo
	for _, e := range h.events {
		if i := e.Info(); i.Payment == payment {
			out = append(out, i)
		}
	}
	return out
}

// AddEndpoint adds a receiver.
func (h *EventHub) AddEndpoint(ep *HubEndpoint) { h.endpoints = append(h.endpoints, ep) }

// Workers are the endpoints' delivery workers.
func (h *EventHub) Workers() []*Worker {
	var ws []*Worker
	for _, ep := range h.endpoints {
		ws = append(ws, ep.Worker)
	}
	return ws
}
