package scenario

import (
	"context"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
)

type staticLedger []LedgerRow

func (s staticLedger) Rows(context.Context, string) ([]LedgerRow, error) { return s, nil }

// The ledger's rows are the service's books, the PSP's log is the card:
// two rows for one intent are a double-booking unless the PSP charged as
// many times, and never a double-charge (the PSP's judge alone names it).
func TestLedgerRowsAreDoubleBookingNotDoubleCharge(t *testing.T) {
	row := LedgerRow{OrderID: "ord-1", Amount: 1000}
	for _, tc := range []struct {
		name    string
		rows    int
		charges int // -1: no PSP log (a counter)
		kinds   []string
		says    string
	}{
		{"psp deduplicated", 2, 1, []string{checker.KindDoubleBooking}, "the PSP has 1: the buyer's card was charged once"},
		{"rows match the psp's two charges", 2, 2, nil, ""},
		{"a row beyond the psp's two charges", 3, 2, []string{checker.KindDoubleBooking}, "the PSP has 2: the buyer's card was charged 2 times"},
		{"no psp log", 2, -1, []string{checker.KindDoubleBooking}, "no PSP log to tell"},
		{"one row", 1, 1, nil, ""},
		{"charged, no row", 0, 1, []string{checker.KindLedgerMissing}, "has none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := testEnv(t, staticEffects{})
			var rows staticLedger
			for range tc.rows {
				rows = append(rows, row)
			}
			e.Ledger = rows
			c := &Check{ID: "X", Level: Safety, Run: func(ctx context.Context, e *Env, t *T) {
				g := &group{order: "ord-1", amount: 1000, expect: 1}
				t.judgeLedger(ctx, g, tc.charges, []string{"payments:u1:k"}, true)
			}}
			r := RunCheck(context.Background(), e, c)
			var kinds []string
			for _, f := range r.Findings {
				kinds = append(kinds, f.Kind)
				if !strings.Contains(f.Message, tc.says) {
					t.Errorf("%s: %q does not say %q", f.Kind, f.Message, tc.says)
				}
			}
			if strings.Join(kinds, ",") != strings.Join(tc.kinds, ",") {
				t.Fatalf("kinds %v, want %v (%s)", kinds, tc.kinds, r.Why)
			}
		})
	}
}
