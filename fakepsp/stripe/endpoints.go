package stripe

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// webhookEndpoint is a registered receiver; its worker delivers to it.
type webhookEndpoint struct {
	id      string
	url     string
	events  []string
	created int64
	// apiVersion its events are rendered in; "" for the account's default
	apiVersion string
	w          *core.Worker
}

func (ep *webhookEndpoint) version() string {
	if ep.apiVersion == "" {
		return APIVersion
	}
	return ep.apiVersion
}

func (ep *webhookEndpoint) wants(typ string) bool { return TypeMatches(ep.events, typ) }

func (ep *webhookEndpoint) json(secret string) map[string]any {
	m := Fill(map[string]any{
		"id": ep.id, "object": "webhook_endpoint", "url": ep.url, "enabled_events": ep.events,
		"status": "enabled", "api_version": ep.version(), "created": ep.created, "livemode": false,
		"metadata": map[string]string{},
	}, EndpointNulls)
	if secret != "" {
		m["secret"] = secret
	}
	return m
}

// addEndpoint registers an endpoint and starts its delivery worker, which
// renders each event in ep's API version and signs it as Stripe signs.
// Callers are inside Enter/Leave, so Close waits for the worker it starts.
func (p *API) addEndpoint(acct *account, rawURL string, events []string, version string) *webhookEndpoint {
	p.mu.Lock()
	defer p.mu.Unlock()
	ep := &webhookEndpoint{id: newID("we"), url: rawURL, events: events, created: p.nowLocked().Unix(), apiVersion: version}
	ep.w = p.h.StartWorker(ep.id, ep.url, func(e core.Event) ([]byte, error) {
		raw, err := p.eventRaw(e.(*event))
		if err != nil {
			return nil, err
		}
		return EventFor(raw, ep.apiVersion), nil
	})
	acct.endpoints = append(acct.endpoints, ep)
	return ep
}

func (p *API) createEndpoint(c *call) response {
	u := c.params.Str("url")
	if u == "" {
		return missingParam("url")
	}
	if err := core.CheckEndpointURL(u); err != nil {
		return invalidParam("url", "Invalid URL: "+u)
	}
	events := c.params.Array("enabled_events")
	if len(events) == 0 {
		return missingParam("enabled_events")
	}
	for i, e := range events {
		if e != "*" && !strings.Contains(e, ".") {
			return invalidParam(fmt.Sprintf("enabled_events[%d]", i), "Invalid event type: "+e)
		}
	}
	version := c.params.Str("api_version")
	if version != "" && !ValidAPIVersion(version) {
		return invalidParam("api_version", "Invalid Stripe API version: "+version)
	}
	c.begin()
	ep := p.addEndpoint(c.acct, u, events, version)
	return ok(ep.json(p.h.WebhookSecret()))
}

func (p *API) listEndpoints(c *call) response {
	p.mu.Lock()
	defer p.mu.Unlock()
	var items []any
	var ids []string
	for i := len(c.acct.endpoints) - 1; i >= 0; i-- {
		items, ids = append(items, c.acct.endpoints[i].json("")), append(ids, c.acct.endpoints[i].id)
	}
	return paginate(c, "/v1/webhook_endpoints", ids, items)
}

func (p *API) deleteEndpoint(c *call) response {
	id := c.r.PathValue("id")
	p.mu.Lock()
	var gone *webhookEndpoint
	for i, ep := range c.acct.endpoints {
		if ep.id == id {
			gone = ep
			c.acct.endpoints = append(c.acct.endpoints[:i:i], c.acct.endpoints[i+1:]...)
			break
		}
	}
	p.mu.Unlock()
	if gone == nil {
		return notFound("id", "webhook_endpoint", id)
	}
	gone.w.Stop()
	return ok(map[string]any{"id": id, "object": "webhook_endpoint", "deleted": true})
}

// dispatch hands ev to every endpoint of acct that wants it.
// dispatchAll dispatches an operation's events in the order it raised them.
func (p *API) dispatchAll(acct *account, evs []*event) {
	for _, ev := range evs {
		p.dispatch(acct, ev)
	}
}

func (p *API) dispatch(acct *account, ev *event) {
	if ev == nil {
		return
	}
	p.mu.Lock()
	var to []*core.Worker
	for _, ep := range acct.endpoints {
		if ep.wants(ev.EventType()) {
			to = append(to, ep.w)
		}
	}
	p.mu.Unlock()
	p.h.Dispatch(ev, to)
}
