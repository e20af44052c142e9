package stripe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/idemcheck/idemcheck/fakepsp/core"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// event is one Stripe Event. Its JSON is fixed at creation, as both the API
// and every webhook delivery send it, and kept on the PSP's disk (rawRef),
// or in API.rawMem when there is no store or writing to it failed: Stripe
// keeps events 30 days, and a soak's thousands of them must not grow the
// heap. No map finds one by id: ids sort by creation (newID), so a binary
// search of the account's events does (eventFor). What it keeps is 80
// bytes: its id as the 9 bytes it spells, its type and its fault target's
// op as words, and no string of its own.
type event struct {
	rawRef spill.Ref
	// key and amount are the fault target's (what webhook faults match
	// on), with op.
	key    string
	amount int64
	// pi and piAmount name the PaymentIntent the event is about, so a
	// harness can hold or resend every event of one payment.
	pi       string
	piAmount int64
	id       eventID
	typ, op  word
}

// EventID, EventType and FaultTarget are what the delivery engine needs of ev.
func (ev *event) EventID() string   { return ev.id.String() }
func (ev *event) EventType() string { return ev.typ.String() }
func (ev *event) FaultTarget() core.Target {
	return core.Target{Key: ev.key, Amount: ev.amount, Op: ev.op.String()}
}

// eventRaw is ev's JSON, read back from disk when it is there.
func (p *API) eventRaw(ev *event) (json.RawMessage, error) {
	if raw, ok := p.rawMem.get(ev); ok {
		return raw, nil
	}
	b, err := p.ops.Spill.Get(ev.rawRef)
	if err != nil {
		return nil, fmt.Errorf("fakepsp: the JSON of event %s cannot be read back: %w", ev.EventID(), err)
	}
	return b, nil
}

func (p *API) info(ev *event) core.EventInfo {
	raw, err := p.eventRaw(ev)
	return core.EventInfo{ID: ev.EventID(), Type: ev.EventType(), Payment: ev.pi, Amount: ev.piAmount, Raw: raw, Err: err}
}

// newEventLocked records an event about obj; the caller holds p.mu and
// dispatches it after unlocking.
func (p *API) newEventLocked(c *call, typ string, obj map[string]any, t core.Target) *event {
	ev := &event{id: mustEventID(newID("evt")), typ: wordOf(typ), key: t.Key, amount: t.Amount, op: wordOf(t.Op)}
	created := p.nowLocked().Unix() // in the JSON only: 112 bytes an event, not 128
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
	raw := EventJSON(ev.EventID(), typ, created, obj, pending, c.requestID, c.idemKey)
	spilled := false
	if p.ops.Spill != nil {
		var err error
		ev.rawRef, err = p.ops.Spill.Put(raw)
		spilled = err == nil
	}
	if !spilled {
		p.rawMem.put(ev, raw)
	}
	c.acct.events = append(c.acct.events, ev)
	return ev
}

// eventsInMemory holds the JSON of the events that are not on disk. Its
// own lock: the delivery engine reads events without the PSP's.
type eventsInMemory struct {
	mu sync.Mutex
	m  map[*event]json.RawMessage
}

func (r *eventsInMemory) put(ev *event, raw json.RawMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[*event]json.RawMessage{}
	}
	r.m[ev] = raw
}

func (r *eventsInMemory) get(ev *event) (json.RawMessage, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	raw, ok := r.m[ev]
	return raw, ok
}

// eventFor finds the account's event id. Events are appended under p.mu
// as newID numbers them, so acct.events is sorted by id (fixed-width
// hexadecimal sequence, then the random part), as by the bytes it spells.
func (acct *account) eventFor(id string) *event {
	want, ok := parseEventID(id)
	if !ok {
		return nil
	}
	evs := acct.events
	i := sort.Search(len(evs), func(i int) bool { return bytes.Compare(evs[i].id[:], want[:]) >= 0 })
	if i < len(evs) && evs[i].id == want {
		return evs[i]
	}
	return nil
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
		if ev := c.acct.events[i]; TypeMatches(types, ev.EventType()) {
			evs, ids = append(evs, ev), append(ids, ev.EventID())
		}
	}
	return paginateLazy(c, "/v1/events", ids, func(i int) (any, error) { return p.eventRaw(evs[i]) })
}

func (p *API) retrieveEvent(c *call) response {
	id := c.r.PathValue("id")
	p.mu.Lock()
	defer p.mu.Unlock()
	ev := c.acct.eventFor(id)
	if ev == nil {
		return notFound("id", "event", id)
	}
	raw, err := p.eventRaw(ev)
	if err != nil {
		return storageError(err)
	}
	return ok(raw)
}
