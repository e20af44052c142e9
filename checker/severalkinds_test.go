package checker

import (
	"fmt"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
)

// TestTwoKindsAtOnce: an intent that breaks two rules names both, whether
// the rules hold in every order or only in the model.
func TestTwoKindsAtOnce(t *testing.T) {
	charge := func(b *hb, amount int64) *hb {
		b.ch(5, 6)
		b.h[len(b.h)-1].Input.Amount = history.Int64(amount)
		return b
	}
	// Both requests asked 3000, the PSP took 5000, and the other body was
	// accepted: two rules of every order.
	b := charge(new(hb).c("a", 0, 30, "fA", history.OutcomeSucceeded, "pay_7"), 5000).c("b", 40, 50, "fB", history.OutcomeSucceeded, "pay_7")
	if got := kindsOf(Check(b.h, CheckOptions{}).Violations); fmt.Sprint(got) != fmt.Sprint([]string{KindMismatchAccepted, KindWrongAmount}) {
		t.Fatalf("kinds = %v", got)
	}
	// The amount holds in every order (both asked 3000); the acceptance only
	// in the model: fA's outcome is unknown, but it is the only request
	// called before the charge, and fB heard succeeded later.
	b = charge(new(hb).c("a", 0, -1, "fA", "", ""), 5000)
	b.h = append(b.h, history.Op{Process: "b", Op: history.OpCreate, Call: 10, Return: history.Int64(20), Intent: "payments:u1:K1",
		Input: history.Input{Fingerprint: "fB", Amount: history.Int64(3000), Currency: "USD"}, Output: &history.Output{Outcome: history.OutcomeSucceeded, PaymentID: "pay_7"}})
	res := Check(b.h, CheckOptions{})
	if got := kindsOf(res.Violations); fmt.Sprint(got) != fmt.Sprint([]string{KindMismatchAccepted, KindWrongAmount}) {
		t.Fatalf("kinds = %v\n%s", got, res.Text())
	}
}
