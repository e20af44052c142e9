package kit

import (
	"fmt"
	"slices"

	"github.com/onsi/gomega/types"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
)

// HaveExactKinds succeeds when the set of kinds among a result's violations
// is exactly kinds: every one present, and none besides. It is for caught
// specs whose finding count depends on a race the spec does not fix (a
// second payment a dying Region may or may not have settled) but whose kinds
// do not; where the count is fixed, matchers.HaveExactViolations says more.
// A mutant that also trips an unrelated kind fails it: that is a harness bug,
// or a second bug, and neither is what the spec claims to catch.
func HaveExactKinds(kinds ...string) types.GomegaMatcher {
	return &exactKinds{want: distinct(kinds)}
}

// HaveExactKindsWith is HaveExactKinds checking a history under opts (a
// result is taken as it is).
func HaveExactKindsWith(opts checker.CheckOptions, kinds ...string) types.GomegaMatcher {
	return &exactKinds{want: distinct(kinds), opts: opts}
}

type exactKinds struct {
	want []string
	opts checker.CheckOptions
	got  []string
	res  *checker.Result
}

func (m *exactKinds) Match(actual interface{}) (bool, error) {
	if len(m.want) == 0 {
		return false, fmt.Errorf("HaveExactKinds: no kinds given; use matchers.HaveNoViolations")
	}
	for _, k := range m.want {
		if !slices.Contains(checker.Kinds, k) {
			return false, fmt.Errorf("HaveExactKinds(%q): no such kind; kinds are %v", k, checker.Kinds)
		}
	}
	switch a := actual.(type) {
	case *checker.Result:
		m.res = a
	case history.History:
		m.res = checker.Check(a, m.opts)
	default:
		return false, fmt.Errorf("HaveExactKinds: want *checker.Result or history.History, got %T", actual)
	}
	var got []string
	for _, v := range m.res.Violations {
		got = append(got, v.Kind)
	}
	m.got = distinct(got)
	return slices.Equal(m.want, m.got), nil
}

func (m *exactKinds) FailureMessage(interface{}) string {
	return fmt.Sprintf("Expected the violations' kinds to be exactly %v, but they are %v.\n%s", m.want, m.got, m.res.TextOf(m.res.Violations))
}

func (m *exactKinds) NegatedFailureMessage(interface{}) string {
	return fmt.Sprintf("Expected the violations' kinds not to be exactly %v.\n%s", m.want, m.res.TextOf(m.res.Violations))
}

// distinct is kinds sorted, each once.
func distinct(kinds []string) []string {
	out := slices.Clone(kinds)
	slices.Sort(out)
	return slices.Compact(out)
}
