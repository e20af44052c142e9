package stripe

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/idemcheck/idemcheck/fakepsp/core"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// event is one Stripe Event. Its JSON is fixed at creation, as both the API
// and every webhook delivery send it, and kept on the PSP's disk (Raw), or
// in API.rawMem when there is no store or writing to it failed. The account
// keeps the event itself in its eventLog, on disk too; the delivery engine
// holds one only while it delivers or a harness holds it. Fields are
// exported for the log's encoding (gob); it holds no string of its own
// beyond its fault target's key and its PaymentIntent.
type event struct {
	Raw spill.Ref
	// Key and Amount are the fault target's (what webhook faults match
	// on), with Op.
	Key    string
	Amount int64
	// PI and PIAmount name the PaymentIntent the event is about, so a
	// harness can hold or resend every event of one payment.
	PI       string
	PIAmount int64
	ID       eventID
	Type, Op word
}

// EventID, EventType and FaultTarget are what the delivery engine needs of ev.
func (ev *event) EventID() string   { return ev.ID.String() }
func (ev *event) EventType() string { return ev.Type.String() }
func (ev *event) FaultTarget() core.Target {
	return core.Target{Key: ev.Key, Amount: ev.Amount, Op: ev.Op.String()}
}

// eventRaw is ev's JSON, read back from disk when it is there.
func (p *API) eventRaw(ev *event) (json.RawMessage, error) {
	if raw, ok := p.rawMem.get(ev.ID); ok {
		return raw, nil
	}
	b, err := p.ops.Spill.Get(ev.Raw)
	if err != nil {
		err = fmt.Errorf("fakepsp: the JSON of event %s cannot be read back: %w", ev.EventID(), err)
		p.readErr.Keep(err) // a webhook or a harness that got no event: ReadError says so
		return nil, err
	}
	return b, nil
}

func (p *API) info(ev *event) core.EventInfo {
	raw, err := p.eventRaw(ev)
	return core.EventInfo{ID: ev.EventID(), Type: ev.EventType(), Payment: ev.PI, Amount: ev.PIAmount, Raw: raw, Err: err}
}

// newEventLocked records an event about obj; the caller holds p.mu and
// dispatches it after unlocking.
func (p *API) newEventLocked(c *call, typ string, obj map[string]any, t core.Target) *event {
	ev := &event{ID: mustEventID(newID("evt")), Type: wordOf(typ), Key: t.Key, Amount: t.Amount, Op: wordOf(t.Op)}
	created := p.nowLocked().Unix() // in the JSON only
	ev.PI, _ = obj["payment_intent"].(string)
	if obj["object"] == "payment_intent" {
		ev.PI, _ = obj["id"].(string)
	}
	if pi := c.acct.intents.Get(ev.PI); pi != nil {
		ev.PIAmount = pi.Amount
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
		ev.Raw, err = p.ops.Spill.Put(raw)
		spilled = err == nil
	}
	if !spilled {
		p.rawMem.put(ev.ID, raw)
	}
	c.acct.events.add(p.ops.Spill, *ev)
	return ev
}

// eventsInMemory holds the JSON of the events that are not on disk. Its
// own lock: the delivery engine reads events without the PSP's.
type eventsInMemory struct {
	mu sync.Mutex
	m  map[eventID]json.RawMessage
}

func (r *eventsInMemory) put(id eventID, raw json.RawMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[eventID]json.RawMessage{}
	}
	r.m[id] = raw
}

func (r *eventsInMemory) get(id eventID) (json.RawMessage, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	raw, ok := r.m[id]
	return raw, ok
}

// storageError is the 500 of a read back from disk that failed: the
// request gets no body the PSP cannot vouch for.
func storageError(err error) response {
	// The answer's message says "fakepsp: " once (refusals.go); the
	// errors of fakepsp's reads begin with it too.
	return refuse(core.Refusal{Kind: core.RefuseStorage, Detail: strings.TrimPrefix(err.Error(), "fakepsp: ")})
}

// eventsUnread is the 500 of an account's events that cannot be read back,
// kept for ReadErr too: a harness that read the events meanwhile had fewer
// than were raised.
func (p *API) eventsUnread(err error) response {
	p.readErr.Keep(err)
	return storageError(err)
}

// listEvents answers a page of the account's events, newest first, walking
// from the newest or the cursor only as far as the page needs (one event
// past it says has_more), as PaginateLazy answers over every id.
func (p *API) listEvents(c *call) response {
	types := c.params.Array("types")
	if t := c.params.Str("type"); t != "" {
		types = append(types, t)
	}
	q, bad := readPageQuery(c.params)
	if bad != nil {
		return *bad
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	l := &c.acct.events
	from, step := l.n-1, -1
	if cursor := q.after + q.before; cursor != "" {
		ev, i, found, err := l.find(cursor)
		if err != nil {
			return p.eventsUnread(err)
		}
		if !found || !TypeMatches(types, ev.EventType()) {
			return listPage("/v1/events", []any{}, false)
		}
		from = i - 1
		if q.before != "" {
			from, step = i+1, 1
		}
	}
	var evs []event
	err := l.walk(from, step, func(ev event) bool {
		if TypeMatches(types, ev.EventType()) {
			evs = append(evs, ev)
		}
		return len(evs) <= q.limit
	})
	if err != nil {
		return p.eventsUnread(err)
	}
	more := len(evs) > q.limit
	evs = evs[:min(len(evs), q.limit)]
	if step > 0 {
		slices.Reverse(evs) // the page nearest the cursor, newest first
	}
	data := make([]any, 0, len(evs))
	for i := range evs {
		raw, err := p.eventRaw(&evs[i])
		if err != nil {
			return storageError(err)
		}
		data = append(data, raw)
	}
	return listPage("/v1/events", data, more)
}

func (p *API) retrieveEvent(c *call) response {
	id := c.r.PathValue("id")
	p.mu.Lock()
	defer p.mu.Unlock()
	ev, _, found, err := c.acct.events.find(id)
	if err != nil {
		return p.eventsUnread(err)
	}
	if !found {
		return notFound("id", "event", id)
	}
	raw, err := p.eventRaw(&ev)
	if err != nil {
		return storageError(err)
	}
	return ok(raw)
}
