// Package matchers holds Gomega matchers over idemcheck histories:
//
//	Expect(rec.History()).To(matchers.HaveNoViolations())
//	Expect(h).To(matchers.HaveOneChargePerIntent())
//	Expect(h).To(matchers.HaveViolation("double-credit"))
//	Expect(h).To(matchers.HaveExactViolations("double-charge", "double-charge"))
//
// The actual value may be a history.History, a *history.Recorder or a
// *checker.Result. On failure the message lists the violations and the HTML
// pictures, written to $IDEMCHECK_REPORT_DIR when set, else a new temp dir.
package matchers

import (
	"fmt"
	"os"
	"strings"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/onsi/gomega/types"
)

// ReportDirEnv names the directory the pictures of failures go to.
const ReportDirEnv = "IDEMCHECK_REPORT_DIR"

// HaveNoViolations succeeds when the history has no violation, every
// partition was decided and there was something to check: an undecided
// partition, or an empty history, proves nothing.
func HaveNoViolations(opts ...checker.CheckOptions) types.GomegaMatcher {
	return &matcher{opts: opts, what: "no violations", fails: func(r *checker.Result) []checker.Violation { return r.Violations }, strict: true}
}

// HaveOneChargePerIntent succeeds when no intent was charged twice or
// charged after it was answered void.
func HaveOneChargePerIntent(opts ...checker.CheckOptions) types.GomegaMatcher {
	return &matcher{opts: opts, what: "one charge per intent", fails: func(r *checker.Result) []checker.Violation {
		return append(r.ByKind(checker.KindDoubleCharge), r.ByKind(checker.KindEffectAfterVoid)...)
	}}
}

// HaveViolation succeeds when the history has at least one violation of kind.
func HaveViolation(kind string, opts ...checker.CheckOptions) types.GomegaMatcher {
	return &matcher{opts: opts, kind: kind, what: "a " + kind + " violation"}
}

// HaveExactViolations succeeds when the history's violations are exactly
// these kinds, as many of each as listed, in any order: a caught spec that
// must not also break something else.
func HaveExactViolations(kinds ...string) types.GomegaMatcher {
	return &exact{kinds: kinds}
}

type matcher struct {
	opts   []checker.CheckOptions
	what   string
	kind   string // HaveViolation: succeed when found
	fails  func(*checker.Result) []checker.Violation
	strict bool // undecided partitions fail too
	res    *checker.Result
}

func (m *matcher) Match(actual interface{}) (bool, error) {
	var opts checker.CheckOptions
	if len(m.opts) > 0 {
		opts = m.opts[0]
	}
	var err error
	if m.res, err = result(m.what, actual, opts); err != nil {
		return false, err
	}
	if m.kind != "" {
		if err := knownKind("HaveViolation", m.kind); err != nil {
			return false, err
		}
		return len(m.res.ByKind(m.kind)) > 0, nil
	}
	if m.strict && (!m.res.Decided() || m.res.Ops == 0) {
		return false, nil
	}
	return len(m.fails(m.res)) == 0, nil
}

// result checks actual, or takes the result it already is.
func result(what string, actual interface{}, opts checker.CheckOptions) (*checker.Result, error) {
	switch a := actual.(type) {
	case history.History:
		return checker.Check(a, opts), nil
	case []history.Op:
		return checker.Check(a, opts), nil
	case *history.Recorder:
		return checker.Check(a.History(), opts), nil
	case *checker.Result:
		return a, nil
	}
	return nil, fmt.Errorf("idemcheck matcher %s: want history.History, *history.Recorder or *checker.Result, got %T", what, actual)
}

func knownKind(matcher, kind string) error {
	for _, k := range checker.Kinds {
		if k == kind {
			return nil
		}
	}
	return fmt.Errorf("%s(%q): no such kind; kinds are %v", matcher, kind, checker.Kinds)
}

func (m *matcher) FailureMessage(actual interface{}) string {
	if m.kind != "" {
		return fmt.Sprintf("Expected the history to have %s, but it has none.\n%s", m.what, m.report(m.res.Violations))
	}
	why := ""
	switch {
	case m.strict && m.res.Ops == 0:
		why = "The history has no operation: nothing was checked.\n"
	case m.strict && !m.res.Decided():
		why = fmt.Sprintf("Nothing was proven where the checker did not decide: %d partition(s) undecided, %d op(s) left out.\n", len(m.res.Unknown), len(m.res.Invalid))
	}
	return fmt.Sprintf("Expected the history to have %s.\n%s%s", m.what, why, m.report(m.fails(m.res)))
}

func (m *matcher) NegatedFailureMessage(actual interface{}) string {
	if m.kind != "" {
		return fmt.Sprintf("Expected the history not to have %s.\n%s", m.what, m.report(m.res.ByKind(m.kind)))
	}
	return fmt.Sprintf("Expected the history not to have %s, but it has.\n%s", m.what, m.report(nil))
}

func (m *matcher) report(vs []checker.Violation) string { return report(m.res, vs) }

// report prints the violations and writes the pictures of the whole result.
func report(res *checker.Result, vs []checker.Violation) string {
	var b strings.Builder
	b.WriteString(res.TextOf(vs))
	dir := os.Getenv(ReportDirEnv)
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "idemcheck-report-"); err != nil {
			fmt.Fprintf(&b, "(no pictures: %v)\n", err)
			return b.String()
		}
	}
	paths, err := res.WriteHTML(dir)
	for _, p := range paths {
		fmt.Fprintf(&b, "picture: %s\n", p)
	}
	if err != nil {
		fmt.Fprintf(&b, "(pictures incomplete: %v)\n", err)
	}
	return b.String()
}
