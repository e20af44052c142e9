package stripe

import (
	"encoding/hex"
	"sync/atomic"

	"github.com/idemcheck/idemcheck/fakepsp/core"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// account is everything one secret key owns: Stripe scopes objects and
// idempotency keys to an account. Guarded by API.mu.
type account struct {
	id        string
	keys      *core.KeyStore
	intents   *intentBook
	charges   *seqIndex                 // successful charges' sequences -> their intents'
	failed    *recordBook[FailedCharge] // declined attempts
	refunds   *recordBook[Refund]
	events    eventLog // creation order, on disk
	endpoints []*webhookEndpoint
	customers map[string]*customer
	cusSeq    []*customer // creation order, for the list
}

// newAccount is an account whose intents stay in memory; API.AddAccount
// gives it the PSP's store instead.
func newAccount() *account {
	return &account{
		id:        "acct_" + randToken(16),
		keys:      core.NewKeyStore(),
		intents:   newIntentBook(nil, &versionStore{}, &spill.FirstErr{}),
		charges:   newSeqIndex(nil, "charges", &spill.FirstErr{}),
		failed:    newFailedBook(nil, &spill.FirstErr{}),
		refunds:   newRefundBook(nil, &spill.FirstErr{}),
		customers: map[string]*customer{},
	}
}

func newFailedBook(disk *spill.Store, failed *spill.FirstErr) *recordBook[FailedCharge] {
	return newRecordBook(disk, "declined charge", func(fc *FailedCharge) string { return fc.ID }, failed)
}

func newRefundBook(disk *spill.Store, failed *spill.FirstErr) *recordBook[Refund] {
	return newRecordBook(disk, "refund", func(r *Refund) string { return r.ID }, failed)
}

var idSeq atomic.Int64

// newID makes Stripe-looking ids (pi_..., ch_...) that are unique in-process
// and sort by creation.
func newID(prefix string) string {
	n := idSeq.Add(1)
	return prefix + "_" + hex.EncodeToString([]byte{byte(n >> 40), byte(n >> 32), byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}) + randToken(6)
}
