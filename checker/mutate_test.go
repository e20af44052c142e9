package checker

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
)

// A mutation injects one fault into a legal generated history and names the
// violations the checker must find, one kind per violation: exactly those,
// no fewer and no more. A mutation keeps the other ground truth of the file
// telling the same story (a credit that never happened is in no balance and
// no sink total either), so any other kind is a false alarm.
type mutation struct {
	name   string
	kinds  []string
	mutate func(t *testing.T, h history.History) history.History
}

// mutations is every mutation, the payment kinds' and the newer kinds'
// (mutate_kinds_test.go).
func mutations() []mutation { return append(paymentMutations(), newerMutations()...) }

// mutationBase is the legal history the mutations start from: seed 11,
// with enough ops to hold every op kind several times over.
func mutationBase() (history.History, map[string]int64) {
	return history.Generate(history.GenOptions{Seed: 11, Ops: 5000, UnknownRate: 0.05})
}

// TestMutatedGenerated injects each fault into a large legal history and
// expects exactly its kinds back, every partition still decided.
func TestMutatedGenerated(t *testing.T) {
	base, initial := mutationBase()
	if res := Check(base, CheckOptions{InitialBalances: initial}); !res.Passed() {
		t.Fatalf("the base is not legal:\n%s", res.Text())
	}
	for _, m := range mutations() {
		t.Run(m.name, func(t *testing.T) {
			h := m.mutate(t, append(history.History(nil), base...))
			res := Check(h, CheckOptions{InitialBalances: initial})
			want := append([]string(nil), m.kinds...)
			sort.Strings(want)
			if got := kindsOf(res.Violations); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("seed 11: kinds = %v, want %v\n%s", got, want, res.Text())
			}
			if !res.Decided() {
				t.Fatalf("seed 11: undecided %v", res.Unknown)
			}
			var said strings.Builder
			for _, v := range res.Violations {
				said.WriteString(v.Message + "\n")
			}
			for _, w := range mutationSays[m.name] {
				if !strings.Contains(said.String(), w) {
					t.Errorf("seed 11: no message says %q:\n%s", w, said.String())
				}
			}
		})
	}
}

// TestMutationsCoverEveryKind: a kind added to the checker without a
// mutation of a generated history fails here, not silently.
func TestMutationsCoverEveryKind(t *testing.T) {
	covered := map[string]bool{}
	for _, m := range mutations() {
		for _, k := range m.kinds {
			covered[k] = true
		}
	}
	for _, k := range Kinds {
		if !covered[k] {
			t.Errorf("no mutation is caught as %s", k)
		}
	}
}

// nth is the index of the n-th op (from 0) that keep accepts.
func nth(t *testing.T, h history.History, n int, keep func(op *history.Op) bool) int {
	t.Helper()
	for i := range h {
		if keep(&h[i]) {
			if n == 0 {
				return i
			}
			n--
		}
	}
	t.Fatal("the generated history has too few ops of the kind the mutation needs")
	return -1
}

func isOp(kind string) func(op *history.Op) bool {
	return func(op *history.Op) bool { return op.Op == kind }
}

// refundedPayments are the payments the generator refunded, in full or not:
// a lost credit of one is no lost-effect (HISTORY.md).
func refundedPayments(h history.History) map[string]bool {
	out := map[string]bool{}
	for i := range h {
		if h[i].Op == history.OpRefund {
			out[h[i].PaymentID] = true
		}
	}
	return out
}

// quiet is a time after every op of h, where appended ops overlap nothing.
func quiet(h history.History) int64 {
	var end int64
	for i := range h {
		end = max(end, h[i].Call)
		if h[i].Return != nil {
			end = max(end, *h[i].Return)
		}
	}
	return end + 1_000_000
}

// paymentMutations break the payment kinds.
func paymentMutations() []mutation {
	return []mutation{
		{"double-charge", []string{KindDoubleCharge}, func(t *testing.T, h history.History) history.History {
			c := h[nth(t, h, 3, isOp(history.OpCharge))]
			c.Process, c.Input.PSPKey = "psp-zombie", c.PaymentID+":R2:1"
			return append(h, c)
		}},
		{"double-credit", []string{KindDoubleCredit}, func(t *testing.T, h history.History) history.History {
			// The zombie's credit lands with the first, so the balance reads
			// after both show both; a read that overlaps them may show
			// either and is left out rather than guessed.
			c := h[nth(t, h, 5, isOp(history.OpCredit))]
			zombie := c
			zombie.Process, zombie.Input.EventID = "ledger-zombie", "ev_random"
			var out history.History
			for _, op := range h {
				if op.Op == history.OpBalance && op.Input.Merchant == c.Input.Merchant {
					if op.Call <= *c.Return && *op.Return >= c.Call {
						continue
					}
					if op.Call > *c.Return {
						op.Output = &history.Output{Balance: history.Int64(*op.Output.Balance + *c.Input.Amount)}
					}
				}
				out = append(out, op)
			}
			return append(out, zombie)
		}},
		{"lost-effect", []string{KindLostEffect}, func(t *testing.T, h history.History) history.History {
			// The credit never happened, so no balance shows it and the
			// sink's total lacks it: drop the merchant's reads rather than
			// guess which saw it, and take it out of the sink row.
			refunded := refundedPayments(h)
			i := nth(t, h, 7, func(op *history.Op) bool { return op.Op == history.OpCredit && !refunded[op.PaymentID] })
			c := h[i]
			var out history.History
			for j, op := range h {
				switch {
				case j == i, op.Op == history.OpBalance && op.Input.Merchant == c.Input.Merchant:
					continue
				case op.Op == history.OpSink && op.Input.Merchant == c.Input.Merchant && op.Input.Day == creditDay(c):
					op.Output = &history.Output{Total: history.Int64(*op.Output.Total - *c.Input.Amount), Tag: op.Output.Tag}
				}
				out = append(out, op)
			}
			return out
		}},
		{"notification-stacked", []string{KindNotificationStacked}, func(t *testing.T, h history.History) history.History {
			n := h[nth(t, h, 9, isOp(history.OpNotify))]
			n.Process, n.Input.ReplaceID, n.Output = "push-zombie", "fresh", &history.Output{Shown: history.Int(2), Alert: history.Bool(true)}
			return append(h, n)
		}},
		{"inconsistent-answer", []string{KindInconsistentAnswer}, func(t *testing.T, h history.History) history.History {
			c := h[nth(t, h, 13, func(op *history.Op) bool { return op.Op == history.OpCreate && op.Output != nil })]
			ret := *c.Return + 1000000
			c.Process, c.Call, c.Return = "phone-zombie", ret-10, &ret
			c.Output = &history.Output{Outcome: history.OutcomeSucceeded, PaymentID: "pay_other"}
			return append(h, c)
		}},
		{"mismatch-accepted", []string{KindMismatchAccepted}, func(t *testing.T, h history.History) history.History {
			// Another body under the key, long after, handed the payment.
			c := h[nth(t, h, 6, answeredSucceeded)]
			ret := *c.Return + 1000000
			c.Process, c.Call, c.Return = "phone-other-body", ret-10, &ret
			c.Input.Fingerprint, c.Input.Amount = c.Input.Fingerprint+"-other", history.Int64(*c.Input.Amount+1)
			return append(h, c)
		}},
		{"false-mismatch", []string{KindFalseMismatch}, func(t *testing.T, h history.History) history.History {
			c := h[nth(t, h, 8, answeredSucceeded)]
			ret := *c.Return + 1000000
			c.Process, c.Call, c.Return, c.Output = "phone-retry-late", ret-10, &ret, &history.Output{Outcome: history.OutcomeMismatch}
			return append(h, c)
		}},
		{"effect-after-void", []string{KindEffectAfterVoid}, func(t *testing.T, h history.History) history.History {
			// effect-after-void.jsonl's story: a create queued at the load
			// balancer, a resolve told void, then the late create charged
			// (and refunded, so nothing else is owed).
			at, in := quiet(h), "payments:void:K1"
			return append(h,
				history.Op{Process: "phone-void", Op: history.OpCreate, Call: at, Intent: in, Input: history.Input{Fingerprint: "fp-void", Amount: history.Int64(500), Currency: "USD"}},
				history.Op{Process: "phone-void-2", Op: history.OpResolve, Call: at + 10, Return: history.Int64(at + 20), Intent: in, Output: &history.Output{Outcome: history.OutcomeVoid}},
				history.Op{Process: "psp-void", Op: history.OpCharge, Call: at + 30, Return: history.Int64(at + 31), Intent: in, PaymentID: "pay_void",
					Input: history.Input{PSPKey: "pay_void:charge", Amount: history.Int64(500)}, Output: &history.Output{ChargeID: "ch_void"}},
				history.Op{Process: "psp-void", Op: history.OpRefund, Call: at + 40, Return: history.Int64(at + 41), Intent: in, PaymentID: "pay_void",
					Input: history.Input{PSPKey: "pay_void:refund", Amount: history.Int64(500), ChargeID: "ch_void"}, Output: &history.Output{RefundID: "re_void"}})
		}},
		{"wrong-amount", []string{KindWrongAmount}, func(t *testing.T, h history.History) history.History {
			i := nth(t, h, 4, isOp(history.OpCharge))
			h[i].Input.Amount = history.Int64(*h[i].Input.Amount * 100)
			return h
		}},
		{"failed-but-charged", []string{KindFailedButCharged}, func(t *testing.T, h history.History) history.History {
			// A1's stuck answer: every succeeded the client heard was
			// processing instead, and nothing was refunded.
			refunded := refundedPayments(h)
			pid := h[nth(t, h, 2, func(op *history.Op) bool { return op.Op == history.OpCharge && !refunded[op.PaymentID] })].PaymentID
			for i := range h {
				if op := &h[i]; (op.Op == history.OpCreate || op.Op == history.OpResolve) && op.Output != nil &&
					op.Output.PaymentID == pid && op.Output.Outcome == history.OutcomeSucceeded {
					op.Output = &history.Output{Outcome: history.OutcomeProcessing, PaymentID: pid}
				}
			}
			return h
		}},
	}
}

func answeredSucceeded(op *history.Op) bool {
	return op.Op == history.OpCreate && op.Output != nil && op.Output.Outcome == history.OutcomeSucceeded
}
