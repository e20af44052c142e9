package matchers

import (
	"fmt"
	"slices"

	"github.com/idemcheck/idemcheck/checker"
)

// exact is HaveExactViolations.
type exact struct {
	kinds []string
	res   *checker.Result
}

func (m *exact) Match(actual interface{}) (bool, error) {
	for _, k := range m.kinds {
		if err := knownKind("HaveExactViolations", k); err != nil {
			return false, err
		}
	}
	var err error
	if m.res, err = result("exact violations", actual, checker.CheckOptions{}); err != nil {
		return false, err
	}
	return slices.Equal(sorted(m.kinds), sorted(kindsOf(m.res))), nil
}

func (m *exact) FailureMessage(interface{}) string {
	return fmt.Sprintf("Expected the history's violations to be exactly %v, but they are %v.\n%s",
		sorted(m.kinds), sorted(kindsOf(m.res)), report(m.res, m.res.Violations))
}

func (m *exact) NegatedFailureMessage(interface{}) string {
	return fmt.Sprintf("Expected the history's violations not to be exactly %v.\n%s", sorted(m.kinds), report(m.res, m.res.Violations))
}

func kindsOf(r *checker.Result) []string {
	out := make([]string, 0, len(r.Violations))
	for _, v := range r.Violations {
		out = append(out, v.Kind)
	}
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
