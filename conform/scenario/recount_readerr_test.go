package scenario

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/config"
)

// failingLedger is a service's ledger that cannot be read.
type failingLedger struct{}

func (failingLedger) Rows(context.Context, string) ([]LedgerRow, error) {
	return nil, errors.New("ledger.url answered 503")
}

// TestRecountUnreadableLedgerIsNotAPass: the recount holds each order's
// ledger rows to what its check counted (a late row is double-booking);
// a ledger it could not read was taken for one with no late row, and the
// recount passed on rows it never saw. It is inconclusive, as a check's
// unreadable ledger is (judgeLedger).
func TestRecountUnreadableLedgerIsNotAPass(t *testing.T) {
	fx := &growingEffects{}
	e := &Env{Cfg: &config.Config{}, Effects: fx, Ledger: failingLedger{}}
	sentAs(e, "ord-a", 10, "p:u1:k1")
	fx.add(charge("ka", 10, map[string]string{"order": "ord-a"}, "ch_1"))
	e.Judged("ord-a", 1, 1, 1)
	rs := Recount(context.Background(), e, nil)
	r := rs[len(rs)-1]
	if r.Verdict != Inconclusive || !strings.Contains(r.Why, "ledger") || !strings.Contains(r.Why, "503") {
		t.Fatalf("verdict %s (%s), want inconclusive quoting the ledger's failure", r.Verdict, r.Why)
	}
}
