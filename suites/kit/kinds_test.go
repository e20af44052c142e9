package kit

import (
	"testing"

	"github.com/idemcheck/idemcheck/checker"
)

// TestHaveExactKinds: the set of kinds must match, whatever the count of
// each; an extra kind or a missing one fails, and so does an unknown name.
func TestHaveExactKinds(t *testing.T) {
	res := &checker.Result{Violations: []checker.Violation{
		{Kind: checker.KindDoubleCredit}, {Kind: checker.KindDoubleCredit}, {Kind: checker.KindDoubleCharge}}}
	for _, tc := range []struct {
		kinds []string
		want  bool
	}{
		{[]string{checker.KindDoubleCharge, checker.KindDoubleCredit}, true},
		{[]string{checker.KindDoubleCredit, checker.KindDoubleCharge, checker.KindDoubleCredit}, true},
		{[]string{checker.KindDoubleCredit}, false},                                                   // an extra kind
		{[]string{checker.KindDoubleCredit, checker.KindDoubleCharge, checker.KindLostEffect}, false}, // a missing kind
	} {
		ok, err := HaveExactKinds(tc.kinds...).Match(res)
		if err != nil || ok != tc.want {
			t.Errorf("HaveExactKinds(%v): %v, %v; want %v", tc.kinds, ok, err, tc.want)
		}
	}
	if _, err := HaveExactKinds("double-credits").Match(res); err == nil {
		t.Error("an unknown kind matched")
	}
	if _, err := HaveExactKinds().Match(res); err == nil {
		t.Error("no kinds matched: a caught spec must name one")
	}
}
