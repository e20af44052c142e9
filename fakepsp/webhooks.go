package fakepsp

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
	wire "github.com/idemcheck/idemcheck/fakepsp/stripe"
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
		return DefaultAPIVersion
	}
	return ep.apiVersion
}

func (ep *webhookEndpoint) wants(typ string) bool { return wire.TypeMatches(ep.events, typ) }

func (ep *webhookEndpoint) json(secret string) map[string]any {
	m := wire.Fill(map[string]any{
		"id": ep.id, "object": "webhook_endpoint", "url": ep.url, "enabled_events": ep.events,
		"status": "enabled", "api_version": ep.version(), "created": ep.created, "livemode": false,
		"metadata": map[string]string{},
	}, wire.EndpointNulls)
	if secret != "" {
		m["secret"] = secret
	}
	return m
}

// addEndpoint registers an endpoint and starts its delivery worker. Callers
// are inside enter/leave, so Close waits for the worker it starts.
func (p *PSP) addEndpoint(acct *account, rawURL string, events []string, version string) *webhookEndpoint {
	p.mu.Lock()
	defer p.mu.Unlock()
	ep := &webhookEndpoint{id: newID("we"), url: rawURL, events: events, created: p.nowLocked().Unix(), apiVersion: version}
	ep.w = p.newWorker(ep)
	acct.endpoints = append(acct.endpoints, ep)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		ep.w.Run()
	}()
	return ep
}

// newWorker is ep's delivery engine, speaking Stripe's webhook wire: each
// copy rendered in ep's API version and signed as Stripe signs, with
// t the wall-clock time, not the PSP clock: receivers check it against their
// own wall clock (stripe-go allows 300 s), whatever a suite did to PSP time.
func (p *PSP) newWorker(ep *webhookEndpoint) *core.Worker {
	return core.NewWorker(p.ctx, core.WorkerConfig{EndpointID: ep.id, URL: ep.url, Schedule: p.cfg.WebhookSchedule,
		Faults: p.faults, Pause: p.pause, Log: p.dlog, Accepted: dialect.Webhooks().Accepted,
		Freedoms: core.Freedoms(p.cfg.WebhookFreedoms), Counts: &p.freedoms,
		Send: func(ctx context.Context, client *http.Client, e core.Event) (core.Answer, error) {
			raw := wire.EventFor(e.(*event).raw, ep.apiVersion)
			req, err := dialect.Webhooks().Request(ctx, ep.url, raw, p.whSecret, time.Now())
			if err != nil {
				return core.Answer{}, err
			}
			return core.Post(client, req)
		}})
}

// RegisterWebhook registers url for the first account, as POST
// /v1/webhook_endpoints would; no events means every event ("*").
func (p *PSP) RegisterWebhook(rawURL string, events ...string) (string, error) {
	return p.RegisterWebhookFor(p.firstKey, rawURL, events...)
}

// RegisterWebhookFor registers url for the account of secretKey.
func (p *PSP) RegisterWebhookFor(secretKey, rawURL string, events ...string) (string, error) {
	acct := p.accountFor(secretKey)
	if acct == nil {
		return "", fmt.Errorf("fakepsp: no account with secret key %s", redact(secretKey))
	}
	if err := checkEndpointURL(rawURL); err != nil {
		return "", err
	}
	if len(events) == 0 {
		events = []string{"*"}
	}
	if !p.enter() {
		return "", fmt.Errorf("fakepsp: closed")
	}
	defer p.leave()
	return p.addEndpoint(acct, rawURL, events, "").id, nil
}

func checkEndpointURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("fakepsp: invalid webhook URL %q: want http(s)://host/path", raw)
	}
	return nil
}

func (p *PSP) createEndpoint(c *call) response {
	u := c.params.Str("url")
	if u == "" {
		return missingParam("url")
	}
	if err := checkEndpointURL(u); err != nil {
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
	if version != "" && !wire.ValidAPIVersion(version) {
		return invalidParam("api_version", "Invalid Stripe API version: "+version)
	}
	c.begin()
	ep := p.addEndpoint(c.acct, u, events, version)
	return ok(ep.json(p.whSecret))
}

func (p *PSP) listEndpoints(c *call) response {
	p.mu.Lock()
	defer p.mu.Unlock()
	var items []any
	var ids []string
	for i := len(c.acct.endpoints) - 1; i >= 0; i-- {
		items, ids = append(items, c.acct.endpoints[i].json("")), append(ids, c.acct.endpoints[i].id)
	}
	return paginate(c, "/v1/webhook_endpoints", ids, items)
}

func (p *PSP) deleteEndpoint(c *call) response {
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
func (p *PSP) dispatchAll(acct *account, evs []*event) {
	for _, ev := range evs {
		p.dispatch(acct, ev)
	}
}

func (p *PSP) dispatch(acct *account, ev *event) {
	if ev == nil {
		return
	}
	p.mu.Lock()
	var to []*core.Worker
	for _, ep := range acct.endpoints {
		if ep.wants(ev.typ) {
			to = append(to, ep.w)
		}
	}
	holds := append([]*Hold(nil), p.holds...)
	p.mu.Unlock()
	for _, w := range to {
		if !slices.ContainsFunc(holds, func(h *Hold) bool { return h.h.Take(ev, w) }) {
			w.Enqueue(ev)
		}
	}
}

// DeliveryAdded returns a channel closed at the next delivery logged, so a
// harness acts the moment an answer arrives (a kill right after the ack).
func (p *PSP) DeliveryAdded() <-chan struct{} { return p.dlog.Added() }

// Deliveries returns every webhook delivery attempt so far, in order.
func (p *PSP) Deliveries() []Delivery { return p.dlog.All() }
