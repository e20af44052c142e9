package checker

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
)

// TestFailedThenRefunded: a create answered failed (final) whose intent the
// PSP charged 3000, with what the PSP refunded of that charge. HISTORY.md:
// "Every charged intent not refunded in full whose client was told anything
// but succeeded at the end is failed-but-charged", "Partial refunds that add
// up to the charge are legal"; and rule 6 with the inconsistent-answer
// section: "failed means never charged", "failed with one [a charge]
// (where charges are recorded)" is inconsistent-answer, refunded or not.
func TestFailedThenRefunded(t *testing.T) {
	const head = `{"process":"phone-1","op":"create","call":10,"return":60,"intent":"payments:u1:K1","input":{"fingerprint":"f1","amount":3000,"currency":"USD"},"output":{"outcome":"failed","payment_id":"pay_7"}}
{"process":"psp","op":"charge","call":20,"return":21,"payment_id":"pay_7","input":{"psp_key":"pay_7:charge","amount":3000},"output":{"charge_id":"ch_1"}}
`
	refund := func(key string, amount, at string) string {
		return `{"process":"psp","op":"refund","call":` + at + `,"return":` + at + `,"payment_id":"pay_7","input":{"psp_key":"` + key + `","amount":` + amount + `,"charge_id":"ch_1"},"output":{"refund_id":"re_` + at + `"}}` + "\n"
	}
	for _, c := range []struct {
		name    string
		refunds string
		kinds   []string
	}{
		{"no refund", "", []string{KindInconsistentAnswer, KindFailedButCharged}},
		{"a partial refund", refund("pay_7:cancel:refund", "1000", "40"), []string{KindInconsistentAnswer, KindFailedButCharged}},
		{"a full refund", refund("pay_7:cancel:refund", "3000", "40"), []string{KindInconsistentAnswer}},
		{"refunds adding up to the charge", refund("pay_7:cancel:refund", "1000", "40") + refund("pay_7:cancel:refund-2", "2000", "50"), []string{KindInconsistentAnswer}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, err := history.ReadJSONL(strings.NewReader(head + c.refunds))
			if err != nil {
				t.Fatal(err)
			}
			res := Check(h, CheckOptions{})
			got := kindsOf(res.Violations)
			slices.Sort(got)
			want := slices.Clone(c.kinds)
			slices.Sort(want)
			if !slices.Equal(got, want) || !res.Decided() {
				t.Fatalf("kinds %v (decided %v), want %v\n%s", got, res.Decided(), want, res.Text())
			}
			for _, v := range res.Violations {
				if v.Intent != "payments:u1:K1" {
					t.Errorf("%s names intent %q", v.Kind, v.Intent)
				}
			}
		})
	}
}
