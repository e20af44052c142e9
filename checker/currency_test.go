package checker

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
)

// TestCreateWithoutCurrency: a create that names no currency (HISTORY.md:
// optional, the request sent none) is held to its amount only. A charge in
// usd of the amount asked is no wrong-amount; of another amount it is. Both
// ways the checker decides: one claiming create (every order alike, decided
// without the model) and two creates of other amounts either of which may
// have claimed (the model tries the orders); and when the partition is
// illegal for another reason, the kinds named then.
func TestCreateWithoutCurrency(t *testing.T) {
	const one = `{"process":"phone-1","op":"create","call":10,"return":50,"intent":"payments:u1:K1","input":{"fingerprint":"f1","amount":3000},"output":{"outcome":"succeeded","payment_id":"pay_1"}}
{"process":"psp","op":"charge","call":20,"return":21,"payment_id":"pay_1","input":{"psp_key":"pay_1:charge","amount":AMOUNT,"currency":"CUR"},"output":{"charge_id":"ch_1"}}
`
	failed := strings.Replace(one, `"succeeded"`, `"failed"`, 1)
	const two = `{"process":"phone-2","op":"create","call":200,"return":null,"intent":"payments:u2:K1","input":{"fingerprint":"fA","amount":3000}}
{"process":"phone-3","op":"create","call":205,"return":null,"intent":"payments:u2:K1","input":{"fingerprint":"fB","amount":3500}}
{"process":"psp","op":"charge","call":220,"return":221,"payment_id":"pay_2","input":{"psp_key":"pay_2:charge","amount":AMOUNT,"currency":"CUR"},"output":{"charge_id":"ch_2"}}
{"process":"phone-2","op":"create","call":300,"return":310,"intent":"payments:u2:K1","input":{"fingerprint":"fA","amount":3000},"output":{"outcome":"succeeded","payment_id":"pay_2"}}
{"process":"phone-3","op":"create","call":320,"return":330,"intent":"payments:u2:K1","input":{"fingerprint":"fB","amount":3500},"output":{"outcome":"mismatch"}}
`
	for _, c := range []struct {
		name, file, amount, currency string
		kinds                        []string
	}{
		{"one claimer, usd, the amount asked", one, "3000", "usd", nil},
		{"one claimer, USD, the amount asked", one, "3000", "USD", nil},
		{"one claimer, usd, another amount", one, "3100", "usd", []string{KindWrongAmount}},
		// Named only once the model found the partition illegal: told
		// failed, the charge of the amount asked is no wrong-amount too.
		{"one claimer told failed, usd, the amount asked", failed, "3000", "usd", []string{KindFailedButCharged, KindInconsistentAnswer}},
		{"one claimer told failed, usd, another amount", failed, "3100", "usd", []string{KindFailedButCharged, KindWrongAmount}}, // as with a USD create
		{"two claimers, usd, the amount of one", two, "3000", "usd", nil},
		{"two claimers, eur, the amount of the claimer", two, "3000", "eur", nil},
		{"two claimers, usd, the amount of the one refused", two, "3500", "usd", []string{KindWrongAmount}},
		{"two claimers, usd, neither's amount", two, "4000", "usd", []string{KindWrongAmount}},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := strings.NewReplacer("AMOUNT", c.amount, "CUR", c.currency).Replace(c.file)
			h, err := history.ReadJSONL(strings.NewReader(text))
			if err != nil {
				t.Fatal(err)
			}
			res := Check(h, CheckOptions{})
			if got := kindsOf(res.Violations); !slices.Equal(got, c.kinds) || !res.Decided() || len(res.Invalid) > 0 {
				t.Fatalf("kinds %v (decided %v, invalid %v), want %v\n%s", got, res.Decided(), res.Invalid, c.kinds, res.Text())
			}
		})
	}
}
