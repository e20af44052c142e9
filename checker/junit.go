package checker

import (
	"fmt"
	"io"
	"strings"

	"github.com/idemcheck/idemcheck/checker/junit"
)

// junitNames name the checked property each kind fails. Every kind of
// Kinds gets its own test case, so a kind added later is never missing from
// the JUnit file (a kind without a name here is named after itself).
var junitNames = map[string]string{
	KindDoubleCharge:        "one charge per intent",
	KindDoubleCredit:        "one credit per payment",
	KindLostEffect:          "every effect completed at quiescence",
	KindInconsistentAnswer:  "consistent answers per scope",
	KindMismatchAccepted:    "mismatch rejected",
	KindFalseMismatch:       "true retries accepted",
	KindEffectAfterVoid:     "no effect after void",
	KindNotificationStacked: "one notification per payment",
	KindSinkDivergence:      "stream sink matches ledger",
	KindFailedButCharged:    "a charged client is told it succeeded",
	KindWrongAmount:         "charged what was asked",
	KindDoubleRefund:        "refunds within the charge",
	KindStaleWriteApplied:   "the latest version of a write wins",
	KindEffectResurrected:   "a moved or deleted item never comes back",
}

type junitCheck struct{ name, kind string }

func junitChecks() []junitCheck {
	out := make([]junitCheck, 0, len(Kinds))
	for _, k := range Kinds {
		name := junitNames[k]
		if name == "" {
			name = k
		}
		out = append(out, junitCheck{name, k})
	}
	return out
}

// WriteJUnit writes one test case per checked property (failing with the
// violations of its kind), plus one saying whether every partition was
// decided: an error when some ran out of time or an op was left out, since
// nothing was proven there. suite names the test suite (the input, e.g.
// "idemcheck check history.jsonl"). Messages name at most maxListed
// violations or partitions, so a million-op run writes a readable file.
func (r *Result) WriteJUnit(w io.Writer, suite string) error {
	if suite == "" {
		suite = "idemcheck"
	}
	s := junit.Suite{Name: suite, Time: junit.Seconds(r.Elapsed.Seconds())}
	for _, c := range junitChecks() {
		tc := junit.Case{Name: c.name + " (" + c.kind + ")", Classname: suite, Time: "0"}
		vs := r.ByKind(c.kind)
		switch {
		case len(vs) > 0:
			var body strings.Builder
			for i, v := range vs {
				if i == maxListed {
					fmt.Fprintf(&body, "\n... and %d more %s violation(s) (the JSON report lists them)\n", len(vs)-maxListed, c.kind)
					break
				}
				one := Result{Violations: []Violation{v}}
				text := one.Text()
				body.WriteString(text[strings.Index(text, "\n")+1:])
			}
			tc.Failure = &junit.Message{Message: fmt.Sprintf("%d %s violation(s)", len(vs), c.kind), Type: c.kind, Body: body.String()}
		}
		s.Add(tc)
	}
	dec := junit.Case{Name: "every partition decided", Classname: suite, Time: "0"}
	if !r.Decided() {
		var names []string
		for i, u := range r.Unknown {
			if i == maxListed {
				names = append(names, fmt.Sprintf("and %d more", len(r.Unknown)-maxListed))
				break
			}
			names = append(names, u.Name)
		}
		msg := fmt.Sprintf("%d partition(s) undecided within the timeout, %d op(s) left out: nothing was proven there", len(r.Unknown), len(r.Invalid))
		body := strings.Join(names, "\n")
		for i, why := range r.Invalid {
			if i == maxListed {
				body += fmt.Sprintf("\n... and %d more ops left out", len(r.Invalid)-maxListed)
				break
			}
			body += "\nnot checked: " + why
		}
		dec.Error = &junit.Message{Message: msg, Type: VerdictUndecided, Body: strings.TrimPrefix(body, "\n")}
	}
	s.Add(dec)
	return junit.Write(w, s)
}
