package fakepsp

import (
	"crypto/rand"
	"encoding/hex"
	"sync/atomic"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// account is everything one secret key owns: Stripe scopes objects and
// idempotency keys to an account. Guarded by PSP.mu.
type account struct {
	id        string
	keys      *core.KeyStore
	intents   *core.Book[*paymentIntent]
	charges   map[string]*paymentIntent // successful charges
	failed    map[string]*failedCharge  // declined attempts
	chargeSeq []string                  // every charge id, creation order
	refunds   map[string]*refund
	refundSeq []*refund // creation order, for the list
	events    []*event  // creation order
	eventByID map[string]*event
	endpoints []*webhookEndpoint
	customers map[string]*customer
	cusSeq    []*customer // creation order, for the list
}

func newAccount() *account {
	return &account{
		id:        "acct_" + randToken(16),
		keys:      core.NewKeyStore(),
		intents:   core.NewBook[*paymentIntent](),
		charges:   map[string]*paymentIntent{},
		failed:    map[string]*failedCharge{},
		refunds:   map[string]*refund{},
		eventByID: map[string]*event{},
		customers: map[string]*customer{},
	}
}

// addAccount registers an account under key (a fresh sk_test_ key when empty).
func (p *PSP) addAccount(key string) string {
	if key == "" {
		key = dialect.NewCredential()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.accounts[key]; !ok {
		p.accounts[key] = newAccount()
	}
	return key
}

func (p *PSP) accountFor(key string) *account {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accounts[key]
}

var idSeq atomic.Int64

// newID makes Stripe-looking ids (pi_..., ch_...) that are unique in-process
// and sort by creation.
func newID(prefix string) string {
	n := idSeq.Add(1)
	return prefix + "_" + hex.EncodeToString([]byte{byte(n >> 40), byte(n >> 32), byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}) + randToken(6)
}

func randToken(n int) string {
	b := make([]byte, (n+1)/2)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)[:n]
}
