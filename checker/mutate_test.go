package checker

import (
	"fmt"
	"testing"
)

// TestMutatedGenerated injects one fault into a large legal history and
// expects exactly that kind back, many times over.
func TestMutatedGenerated(t *testing.T) {
	const seed = 11
	base, initial := Generate(GenOptions{Seed: seed, Ops: 5000, UnknownRate: 0.05})
	find := func(kind string, n int) int {
		for i := range base {
			if base[i].Op == kind {
				if n == 0 {
					return i
				}
				n--
			}
		}
		t.Fatalf("seed %d: no %s", seed, kind)
		return -1
	}
	cases := []struct {
		kind   string
		mutate func(h History) History
	}{
		{KindDoubleCharge, func(h History) History {
			c := h[find(OpCharge, 3)]
			c.Process, c.Input.PSPKey = "psp-zombie", c.PaymentID+":R2:1"
			return append(h, c)
		}},
		{KindDoubleCredit, func(h History) History {
			c := h[find(OpCredit, 5)]
			c.Process, c.Input.EventID = "ledger-zombie", "ev_random"
			return append(h, c)
		}},
		{KindLostEffect, func(h History) History {
			// The credit never happened, so no balance shows it either: drop
			// the merchant's reads rather than guess which saw it.
			i := find(OpCredit, 7)
			m := h[i].Input.Merchant
			var out History
			for j, op := range h {
				if j != i && !(op.Op == OpBalance && op.Input.Merchant == m) {
					out = append(out, op)
				}
			}
			return out
		}},
		{KindNotificationStacked, func(h History) History {
			n := h[find(OpNotify, 9)]
			n.Process, n.Input.ReplaceID, n.Output = "push-zombie", "fresh", &Output{Shown: Int(2), Alert: Bool(true)}
			return append(h, n)
		}},
		{KindInconsistentAnswer, func(h History) History {
			c := h[find(OpCreate, 13)]
			if c.Output == nil {
				c = h[find(OpCreate, 14)]
			}
			ret := *c.Return + 1000000
			c.Process, c.Call, c.Return = "phone-zombie", ret-10, &ret
			c.Output = &Output{Outcome: OutcomeSucceeded, PaymentID: "pay_other"}
			return append(h, c)
		}},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			h := c.mutate(append(History(nil), base...))
			res := Check(h, CheckOptions{InitialBalances: initial})
			got := kindsOf(res.Violations)
			for _, k := range got {
				if k != c.kind {
					t.Fatalf("seed %d: kinds = %v, want only %s\n%s", seed, got, c.kind, res.Text())
				}
			}
			if len(got) == 0 {
				t.Fatalf("seed %d: %s not caught", seed, c.kind)
			}
			t.Log(fmt.Sprint(len(got), " violation(s)"))
		})
	}
}
