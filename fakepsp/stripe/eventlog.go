package stripe

import (
	"encoding/json"
	"fmt"

	"github.com/idemcheck/idemcheck/fakepsp/core"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// event is one Stripe Event. Its JSON is fixed at creation, as both the API
// and every webhook delivery send it, and kept on the PSP's disk (rawRef),
// or in raw when there is no store or writing to it failed: Stripe keeps
// events 30 days, and a soak's thousands of them must not grow the heap.
type event struct {
	id      string
	typ     string
	created int64
	raw     json.RawMessage // nil once on disk
	rawRef  spill.Ref
	target  core.Target // what webhook faults match on
	// pi and piAmount name the PaymentIntent the event is about, so a
	// harness can hold or resend every event of one payment.
	pi       string
	piAmount int64
}

// EventID, EventType and FaultTarget are what the delivery engine needs of ev.
func (ev *event) EventID() string          { return ev.id }
func (ev *event) EventType() string        { return ev.typ }
func (ev *event) FaultTarget() core.Target { return ev.target }

// eventRaw is ev's JSON, read back from disk when it is there.
func (p *API) eventRaw(ev *event) (json.RawMessage, error) {
	if ev.raw != nil {
		return ev.raw, nil
	}
	b, err := p.ops.Spill.Get(ev.rawRef)
	if err != nil {
		return nil, fmt.Errorf("fakepsp: the JSON of event %s cannot be read back: %w", ev.id, err)
	}
	return b, nil
}

func (p *API) info(ev *event) core.EventInfo {
	raw, err := p.eventRaw(ev)
	return core.EventInfo{ID: ev.id, Type: ev.typ, Payment: ev.pi, Amount: ev.piAmount, Raw: raw, Err: err}
}

// newEventLocked records an event about obj; the caller holds p.mu and
// dispatches it after unlocking.
func (p *API) newEventLocked(c *call, typ string, obj map[string]any, t core.Target) *event {
	ev := &event{id: newID("evt"), typ: typ, created: p.nowLocked().Unix(), target: t}
	ev.pi, _ = obj["payment_intent"].(string)
	if obj["object"] == "payment_intent" {
		ev.pi, _ = obj["id"].(string)
	}
	if pi := c.acct.intents.Get(ev.pi); pi != nil {
		ev.piAmount = pi.Amount
	}
	pending := 0
	for _, ep := range c.acct.endpoints {
		if ep.wants(typ) {
			pending++
		}
	}
	ev.raw = EventJSON(ev.id, typ, ev.created, obj, pending, c.requestID, c.idemKey)
	if p.ops.Spill != nil {
		if ref, err := p.ops.Spill.Put(ev.raw); err == nil {
			ev.raw, ev.rawRef = nil, ref
		}
	}
	c.acct.events = append(c.acct.events, ev)
	c.acct.eventByID[ev.id] = ev
	return ev
}

// storageError is the 500 of a read back from disk that failed: the
// request gets no body the PSP cannot vouch for.
func storageError(err error) response {
	return refuse(core.Refusal{Kind: core.RefuseStorage, Detail: err.Error()})
}

func (p *API) listEvents(c *call) response {
	types := c.params.Array("types")
	if t := c.params.Str("type"); t != "" {
		types = append(types, t)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var evs []*event
	var ids []string
	for i := len(c.acct.events) - 1; i >= 0; i-- {
		if ev := c.acct.events[i]; TypeMatches(types, ev.typ) {
			evs, ids = append(evs, ev), append(ids, ev.id)
		}
	}
	return paginateLazy(c, "/v1/events", ids, func(i int) (any, error) { return p.eventRaw(evs[i]) })
}

func (p *API) retrieveEvent(c *call) response {
	id := c.r.PathValue("id")
	p.mu.Lock()
	defer p.mu.Unlock()
	ev := c.acct.eventByID[id]
	if ev == nil {
		return notFound("id", "event", id)
	}
	raw, err := p.eventRaw(ev)
	if err != nil {
		return storageError(err)
	}
	return ok(raw)
}
