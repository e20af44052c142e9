package adyen

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// server is Adyen's API over a core.Host (core.Server): one merchant
// account per API key, each with its payments, idempotency keys, raised
// notifications and webhook endpoints. Adyen's webhooks are set up in its
// Customer Area, not through the API, so endpoints come only from the
// facade (AddEndpoint: the control API, a harness).
type server struct {
	h   core.Host
	ops core.Ops
	mu  sync.Locker // the host's lock: guards accounts and what they hold
	core.Accounts[*account]
	seq int
}

// account is one API key's merchant account.
type account struct {
	api  *API
	keys *core.KeyStore
	hub  core.EventHub
}

func (a *account) Hub() *core.EventHub     { return &a.hub }
func (a *account) Owns(charge string) bool { return a.api.Book.Has(charge) }

// Serve is Adyen's API over h (core.Dialect).
func (Dialect) Serve(h core.Host) core.Server {
	ops := h.Ops()
	return &server{h: h, ops: ops, mu: ops.Lock, Accounts: core.Accounts[*account]{Lock: ops.Lock}}
}

// MerchantAccount is the merchant account every account of the fake
// answers to; requests naming another are refused as Adyen refuses them.
const MerchantAccount = "IdemcheckECOM"

func (s *server) AddAccount(key string) {
	a := &account{keys: core.NewKeyStore()}
	a.api = &API{Ops: s.ops, Book: core.NewBook[*Payment](), Merchant: MerchantAccount, Emit: func(e core.Event) { s.raise(a, e.(*Event)) }}
	s.Add(key, a)
}

func (s *server) HasAccount(key string) bool { return s.account(key) != nil }

func (s *server) account(key string) *account {
	a, _ := s.Get(key)
	return a
}

// raise logs e and hands it to the account's endpoints that receive it.
func (s *server) raise(a *account, e *Event) {
	s.mu.Lock()
	ws := a.hub.Add(e)
	s.mu.Unlock()
	s.h.Dispatch(e, ws)
}

// AddEndpoint registers a standard-webhook receiver at url for the account
// of key, for the event codes in events (none: every one), as a merchant
// picks a standard webhook's event codes.
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
	id := fmt.Sprintf("adyen_webhook_%d", s.seq)
	a.hub.AddEndpoint(&core.HubEndpoint{ID: id, URL: url, Events: events, Worker: s.h.StartWorker(id, url, func(e core.Event) ([]byte, error) { return render(e), nil })})
	return id, nil
}

// render is the body of one delivery: the event's item as a batch of one,
// unsigned (the webhook wire signs it).
func render(e core.Event) []byte {
	raw, _ := json.Marshal(Batch(e.(*Event).Item))
	return raw
}

func (s *server) Describe(e core.Event) core.EventInfo { return e.(*Event).Info() }

// Info is what a harness sees of the event.
func (e *Event) Info() core.EventInfo {
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

func (s *server) Info() map[string]any {
	return map[string]any{"dialect": "adyen", "api": "Checkout API (any /vNN/ path from v37 to v72)", "merchant_account": MerchantAccount,
		"idempotency_key": map[string]any{"header": Keys.Header, "max_length": Keys.MaxLen, "window": s.h.KeyWindow().String()}}
}

func redact(k string) string {
	if len(k) <= 8 {
		return "****"
	}
	return k[:4] + "****" + k[len(k)-4:]
}
