package checkout

import (
	"fmt"
	"sync"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// server is Checkout.com's API over a core.Host (core.Server): one account
// per secret key, with its payments, idempotency keys, events and webhook
// endpoints (a workflow's webhook action, set up outside the payments API:
// AddEndpoint, from the facade).
type server struct {
	h   core.Host
	ops core.Ops
	mu  sync.Locker // the host's lock
	core.Accounts[*account]
	seq int
}

type account struct {
	api  *api
	keys *core.KeyStore
	hub  core.EventHub
}

func (a *account) Hub() *core.EventHub     { return &a.hub }
func (a *account) Owns(charge string) bool { return a.api.book.Has(charge) }

// Serve is Checkout.com's API over h (core.Dialect).
func (Dialect) Serve(h core.Host) core.Server {
	ops := h.Ops()
	return &server{h: h, ops: ops, mu: ops.Lock, Accounts: core.Accounts[*account]{Lock: ops.Lock}}
}

func (s *server) AddAccount(key string) {
	a := &account{keys: core.NewKeyStore()}
	a.api = &api{ops: s.ops, book: core.NewBook[*Payment](), raise: func(e *Event) {
		s.mu.Lock()
		ws := a.hub.Add(e)
		s.mu.Unlock()
		s.h.Dispatch(e, ws)
	}}
	s.Add(key, a)
}

func (s *server) HasAccount(key string) bool { return s.account(key) != nil }

func (s *server) account(key string) *account {
	a, _ := s.Get(key)
	return a
}

// AddEndpoint registers a webhook receiver for the event types in events
// (none: every one).
func (s *server) AddEndpoint(key, url string, events ...string) (string, error) {
	a := s.account(key)
	if a == nil {
		return "", fmt.Errorf("fakepsp: no Checkout.com account with that secret key")
	}
	if err := core.CheckEndpointURL(url); err != nil {
		return "", err
	}
	if !s.h.Enter() {
		return "", fmt.Errorf("fakepsp: closed")
	}
	defer s.h.Leave()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	id := fmt.Sprintf("wh_%d", s.seq)
	a.hub.AddEndpoint(&core.HubEndpoint{ID: id, URL: url, Events: events,
		Worker: s.h.StartWorker(id, url, func(e core.Event) ([]byte, error) { return e.(*Event).Raw, nil })})
	return id, nil
}

// Info is what a harness sees of the event.
func (e *Event) Info() core.EventInfo {
	return core.EventInfo{ID: e.ID, Type: e.Type, Payment: e.Payment, Amount: e.Amount, Raw: e.Raw}
}

func (s *server) Describe(e core.Event) core.EventInfo { return e.(*Event).Info() }

func (s *server) Info() map[string]any {
	return map[string]any{"dialect": "checkout", "api": "Checkout.com payments (/payments)",
		"idempotency_key": map[string]any{"header": Keys.Header, "window": s.h.KeyWindow().String()}}
}
