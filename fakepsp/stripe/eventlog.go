package stripe

import (
	"encoding/json"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// event is one Stripe Event; raw is its JSON, fixed at creation, as both the
// API and every webhook delivery send it.
type event struct {
	id      string
	typ     string
	created int64
	raw     json.RawMessage
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

func (ev *event) info() core.EventInfo {
	return core.EventInfo{ID: ev.id, Type: ev.typ, Payment: ev.pi, Amount: ev.piAmount, Raw: ev.raw}
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
	c.acct.events = append(c.acct.events, ev)
	c.acct.eventByID[ev.id] = ev
	return ev
}

func (p *API) listEvents(c *call) response {
	types := c.params.Array("types")
	if t := c.params.Str("type"); t != "" {
		types = append(types, t)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var items []any
	var ids []string
	for i := len(c.acct.events) - 1; i >= 0; i-- {
		if ev := c.acct.events[i]; TypeMatches(types, ev.typ) {
			items, ids = append(items, ev.raw), append(ids, ev.id)
		}
	}
	return paginate(c, "/v1/events", ids, items)
}

func (p *API) retrieveEvent(c *call) response {
	id := c.r.PathValue("id")
	p.mu.Lock()
	defer p.mu.Unlock()
	ev := c.acct.eventByID[id]
	if ev == nil {
		return notFound("id", "event", id)
	}
	return ok(ev.raw)
}
