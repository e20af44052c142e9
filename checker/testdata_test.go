package checker

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
)

func readTestdata(t *testing.T, name string) history.History {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := history.ReadJSONL(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return h
}

func kindsOf(vs []Violation) []string {
	var ks []string
	for _, v := range vs {
		ks = append(ks, v.Kind)
	}
	sort.Strings(ks)
	return ks
}

// TestTestdata checks each hand-made history is caught with exactly the kinds
// it was made for, and nothing else.
func TestTestdata(t *testing.T) {
	cases := []struct {
		file  string
		kinds []string
	}{
		{"legal.jsonl", nil},
		{"double-charge.jsonl", []string{KindDoubleCharge}},
		{"double-credit.jsonl", []string{KindDoubleCredit}},
		{"balance-double.jsonl", []string{KindDoubleCredit}},
		{"lost-effect.jsonl", []string{KindLostEffect}},
		{"lost-effect-notify.jsonl", []string{KindLostEffect}},
		{"inconsistent-answer.jsonl", []string{KindInconsistentAnswer}},
		{"inconsistent-answer-caller.jsonl", []string{KindInconsistentAnswer}},
		{"inconsistent-answer-notfound.jsonl", []string{KindInconsistentAnswer}},
		{"mismatch-accepted.jsonl", []string{KindMismatchAccepted}},
		{"false-mismatch.jsonl", []string{KindFalseMismatch}},
		{"effect-after-void.jsonl", []string{KindEffectAfterVoid}},
		{"notification-stacked.jsonl", []string{KindNotificationStacked}},
		{"multi.jsonl", []string{KindDoubleCharge, KindDoubleCredit, KindMismatchAccepted}},
		// issue 12: what money does.
		{"mismatch-accepted-unclaimed.jsonl", []string{KindMismatchAccepted}},
		{"wrong-amount.jsonl", []string{KindWrongAmount}},
		{"wrong-amount-currency.jsonl", []string{KindWrongAmount}},
		// Two bodies could claim and neither asked what was charged; its
		// twin below, charged what one of them asked, is legal.
		{"wrong-amount-no-claimer.jsonl", []string{KindWrongAmount}},
		// The near misses: a currency in other case, a partial refund, the
		// other of two possible claimers charged, a charge before the claim.
		{"wrong-amount-legal.jsonl", nil},
		{"double-refund.jsonl", []string{KindDoubleRefund}},
		{"double-refund-request.jsonl", []string{KindDoubleRefund}},
		{"double-refund-no-charge.jsonl", []string{KindDoubleRefund}},
		{"partial-refunds.jsonl", nil},
		{"in-progress-other-fp.jsonl", nil},
		{"in-progress-then-replay.jsonl", []string{KindMismatchAccepted}},
		{"in-progress-stale-settled.jsonl", nil},
		{"inconsistent-answer-stale-in-progress.jsonl", []string{KindInconsistentAnswer}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			res := Check(readTestdata(t, c.file), CheckOptions{})
			got := kindsOf(res.Violations)
			want := append([]string(nil), c.kinds...)
			sort.Strings(want)
			if len(got) != len(want) {
				t.Fatalf("kinds = %v, want %v\n%s", got, want, res.Text())
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("kinds = %v, want %v\n%s", got, want, res.Text())
				}
			}
			if !res.Decided() {
				t.Fatalf("undecided partitions: %v", res.Unknown)
			}
			for _, v := range res.Violations {
				if len(v.Ops) == 0 || v.Message == "" || (v.Intent == "" && v.Merchant == "") {
					t.Errorf("violation without ops, message or place: %+v", v)
				}
			}
		})
	}
}
