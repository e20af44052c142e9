package stripe

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// API is Stripe's v1 API over a core.Host: the route table, the handlers
// that parse a request into a core operation and render its outcome, and
// the objects Stripe keeps (accounts with their intents, charges, refunds,
// customers, events and webhook endpoints). The money is the host's.
type API struct {
	h      core.Host
	ops    core.Ops
	mu     sync.Locker // the host's lock: guards accounts and every object in them
	faults *core.Faults

	accounts map[string]*account // by secret key
	rawMem   eventsInMemory      // events' JSON not on disk
	versions versionStore        // intents' versions' JSON
	// readErr keeps the first read back from disk (an event's page, an
	// intent's record) that failed since ReadErr was last asked.
	readErr spill.FirstErr
	// keep, when set, is how many unpinned intents each new account keeps
	// in memory (intentBook.keep): tests force eviction with it.
	keep int
}

// Serve is Stripe's API over h (core.Dialect).
func (Dialect) Serve(h core.Host) core.Server { return newAPI(h) }

func newAPI(h core.Host) *API {
	ops := h.Ops()
	p := &API{h: h, ops: ops, mu: ops.Lock, faults: ops.Faults, accounts: map[string]*account{}, versions: versionStore{disk: ops.Spill}}
	p.versions.failed = &p.readErr
	return p
}

// nowLocked is the PSP's clock, for callers holding p.mu.
func (p *API) nowLocked() time.Time { return p.ops.Now() }

// AddAccount registers an account under key, unless one exists.
func (p *API) AddAccount(key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.accounts[key]; !ok {
		acct := newAccount()
		acct.intents = newIntentBook(p.ops.Spill, &p.versions, &p.readErr)
		acct.charges = newSeqIndex(p.ops.Spill, "charges", &p.readErr)
		acct.failed = newFailedBook(p.ops.Spill, &p.readErr)
		acct.refunds = newRefundBook(p.ops.Spill, &p.readErr)
		if p.keep > 0 {
			acct.intents.keep = p.keep
		}
		p.accounts[key] = acct
	}
}

// HasAccount says whether key is an account's secret key.
func (p *API) HasAccount(key string) bool { return p.accountFor(key) != nil }

func (p *API) accountFor(key string) *account {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accounts[key]
}

// AddEndpoint registers url for the account of secretKey, as POST
// /v1/webhook_endpoints would; no events means every event ("*").
func (p *API) AddEndpoint(secretKey, rawURL string, events ...string) (string, error) {
	acct := p.accountFor(secretKey)
	if acct == nil {
		return "", fmt.Errorf("fakepsp: no account with secret key %s", Redact(secretKey))
	}
	if err := core.CheckEndpointURL(rawURL); err != nil {
		return "", err
	}
	if len(events) == 0 {
		events = []string{"*"}
	}
	if !p.h.Enter() {
		return "", fmt.Errorf("fakepsp: closed")
	}
	defer p.h.Leave()
	return p.addEndpoint(acct, rawURL, events, "").id, nil
}

// Event is an event of any account, by id. When the events of an account
// cannot be read back it may be among them: it is then found with Err
// saying so (Send fails on it), never reported missing.
func (p *API) Event(id string) (core.EventInfo, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var unread error
	for _, acct := range p.accounts {
		ev, _, found, err := acct.events.find(id)
		if found {
			return p.info(&ev), true
		}
		if err != nil && unread == nil {
			unread = err
		}
	}
	if unread != nil {
		p.readErr.Keep(unread)
		return core.EventInfo{ID: id, Err: unread}, true
	}
	return core.EventInfo{}, false
}

// Describe says what an event the delivery engine holds is about.
func (p *API) Describe(e core.Event) core.EventInfo { return p.info(e.(*event)) }

// EventsAbout lists the events raised about one PaymentIntent, in order.
// Events that cannot be read back are left out, and ReadErr says so.
func (p *API) EventsAbout(paymentIntent string) []core.EventInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []core.EventInfo
	for _, acct := range p.accounts {
		err := acct.events.about(paymentIntent, func(ev event) { out = append(out, p.info(&ev)) })
		p.readErr.Keep(err)
	}
	return out
}

// PaymentOfCharge names the PaymentIntent of a charge id ("ch_...").
func (p *API) PaymentOfCharge(chargeID string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, acct := range p.accounts {
		if pi, _ := acct.chargeIntent(chargeID); pi != nil { // a failed read is kept for ReadErr
			return pi.ID
		}
	}
	return ""
}

// ReadErr returns, and forgets, the first read back from disk that failed
// since it was last asked: an event's page or an intent's record (an answer
// was a 500, a harness got fewer events than were raised, or a charge's
// intent could not be named): the PSP's ReadError.
func (p *API) ReadErr() error { return p.readErr.Take() }

// Workers are the delivery workers of every endpoint.
func (p *API) Workers() []*core.Worker {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ws []*core.Worker
	for _, acct := range p.accounts {
		for _, ep := range acct.endpoints {
			ws = append(ws, ep.w)
		}
	}
	return ws
}

// Info is Stripe's part of GET /_psp/info: the API version it answers in.
func (p *API) Info() map[string]any { return map[string]any{"api_version": APIVersion} }

// Routes mounts Stripe's API (routes.go).
func (p *API) Routes(mux *http.ServeMux) { p.routes(mux) }

// KeepIntents sets how many unpinned PaymentIntents each account keeps in
// memory (intentBook), now and for accounts made later: tests force
// eviction with it.
func (p *API) KeepIntents(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keep = n
	for _, acct := range p.accounts {
		acct.intents.keep = n
		acct.intents.evict()
	}
}
