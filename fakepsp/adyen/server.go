package adyen

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// server is Adyen's API over a core.Host (core.Server): one merchant
// account per API key, each with its payments, idempotency keys, raised
// notifications and webhook endpoints. Adyen's webhooks are set up in its
// Customer Area, not through the API, so endpoints come only from the
// facade (AddEndpoint: the control API, a harness).
type server struct {
	h        core.Host
	ops      core.Ops
	mu       sync.Locker // the host's lock: guards accounts and what they hold
	accounts map[string]*account
	seq      int
}

// account is one API key's merchant account.
type account struct {
	api       *API
	keys      *core.KeyStore
	events    []*Event
	byID      map[string]*Event
	endpoints []*endpoint
}

type endpoint struct {
	id     string
	url    string
	events []string // event codes it receives; none or "*": every one
	worker *core.Worker
}

// wants says whether the endpoint receives an event of code: Adyen lets a
// merchant pick a standard webhook's event codes.
func (ep *endpoint) wants(code string) bool {
	return len(ep.events) == 0 || slices.Contains(ep.events, "*") || slices.Contains(ep.events, code)
}

// Serve is Adyen's API over h (core.Dialect).
func (Dialect) Serve(h core.Host) core.Server {
	ops := h.Ops()
	return &server{h: h, ops: ops, mu: ops.Lock, accounts: map[string]*account{}}
}

// MerchantAccount is the merchant account every account of the fake
// answers to; requests naming another are refused as Adyen refuses them.
const MerchantAccount = "IdemcheckECOM"

func (s *server) AddAccount(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.accounts[key]; ok {
		return
	}
	a := &account{keys: core.NewKeyStore(), byID: map[string]*Event{}}
	a.api = &API{Ops: s.ops, Book: core.NewBook[*Payment](), Merchant: MerchantAccount, Emit: func(e core.Event) { s.raise(a, e.(*Event)) }}
	s.accounts[key] = a
}

func (s *server) HasAccount(key string) bool { return s.account(key) != nil }

func (s *server) account(key string) *account {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.accounts[key]
}

// raise logs e and hands it to the account's endpoints.
func (s *server) raise(a *account, e *Event) {
	s.mu.Lock()
	a.events = append(a.events, e)
	a.byID[e.EventID()] = e
	var ws []*core.Worker
	for _, ep := range a.endpoints {
		if ep.wants(e.EventType()) {
			ws = append(ws, ep.worker)
		}
	}
	s.mu.Unlock()
	s.h.Dispatch(e, ws)
}

// AddEndpoint registers a standard-webhook receiver at url for the account
// of key, for the event codes in events (none: every one).
func (s *server) AddEndpoint(key, url string, events ...string) (string, error) {
	a := s.account(key)
	if a == nil {
		return "", fmt.Errorf("fakepsp: no Adyen account with API key %s", redact(key))
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
	ep := &endpoint{id: fmt.Sprintf("adyen_webhook_%d", s.seq), url: url, events: events}
	ep.worker = s.h.StartWorker(ep.id, url, render)
	a.endpoints = append(a.endpoints, ep)
	return ep.id, nil
}

// render is the body of one delivery: the event's item as a batch of one,
// unsigned (the webhook wire signs it).
func render(e core.Event) []byte {
	raw, _ := json.Marshal(Batch(e.(*Event).Item))
	return raw
}

func (s *server) Event(id string) (core.EventInfo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.accounts {
		if e := a.byID[id]; e != nil {
			return info(e), true
		}
	}
	return core.EventInfo{}, false
}

func (s *server) Describe(e core.Event) core.EventInfo { return info(e.(*Event)) }

func info(e *Event) core.EventInfo {
	return core.EventInfo{ID: e.EventID(), Type: e.EventType(), Payment: e.Item.Payment(), Amount: e.PaymentAmount, Raw: render(e)}
}

// Payment is the pspReference of the payment an item is about: its own
// for an AUTHORISATION, the original's for a modification.
func (it Item) Payment() string {
	if it.OriginalReference != "" {
		return it.OriginalReference
	}
	return it.PSPReference
}

func (s *server) EventsAbout(payment string) []core.EventInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []core.EventInfo
	for _, a := range s.accounts {
		for _, e := range a.events {
			if e.Item.Payment() == payment {
				out = append(out, info(e))
			}
		}
	}
	return out
}

// PaymentOfCharge: an Adyen payment's charge is the payment itself, under
// its pspReference.
func (s *server) PaymentOfCharge(chargeID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.accounts {
		if a.api.Book.Has(chargeID) {
			return chargeID
		}
	}
	return ""
}

func (s *server) Workers() []*core.Worker {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ws []*core.Worker
	for _, a := range s.accounts {
		for _, ep := range a.endpoints {
			ws = append(ws, ep.worker)
		}
	}
	return ws
}

func (s *server) Info() map[string]any {
	return map[string]any{"dialect": "adyen", "api": "Checkout API (any /vNN/ path)", "merchant_account": MerchantAccount,
		"idempotency_key": map[string]any{"header": Keys.Header, "max_length": Keys.MaxLen, "window": s.h.KeyWindow().String()}}
}

func redact(k string) string {
	if len(k) <= 8 {
		return "****"
	}
	return k[:4] + "****" + k[len(k)-4:]
}
