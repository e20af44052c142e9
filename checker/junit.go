package checker

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// junitChecks are the checked properties, one JUnit test case each, with the
// kinds that fail them.
var junitChecks = []struct{ name, kind string }{
	{"one charge per intent", KindDoubleCharge},
	{"one credit per payment", KindDoubleCredit},
	{"every effect completed at quiescence", KindLostEffect},
	{"consistent answers per scope", KindInconsistentAnswer},
	{"mismatch rejected", KindMismatchAccepted},
	{"true retries accepted", KindFalseMismatch},
	{"no effect after void", KindEffectAfterVoid},
	{"one notification per payment", KindNotificationStacked},
	{"stream sink matches ledger", KindSinkDivergence},
}

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",cdata"`
}

// WriteJUnit writes one test case per checked property (failing with the
// violations of its kind), plus one saying whether every partition was
// decided (skipped when some ran out of time: not proven, not failed).
func (r *Result) WriteJUnit(w io.Writer, suite string) error {
	if suite == "" {
		suite = "idemcheck"
	}
	s := junitSuite{Name: suite}
	for _, c := range junitChecks {
		tc := junitCase{Name: c.name + " (" + c.kind + ")", Classname: suite}
		vs := r.ByKind(c.kind)
		switch {
		case len(vs) > 0:
			var body strings.Builder
			for _, v := range vs {
				one := Result{Violations: []Violation{v}}
				text := one.Text()
				body.WriteString(text[strings.Index(text, "\n")+1:])
			}
			tc.Failure = &junitMessage{Message: fmt.Sprintf("%d %s violation(s)", len(vs), c.kind), Type: c.kind, Body: body.String()}
			s.Failures++
		case c.kind == KindSinkDivergence:
			tc.Skipped = &junitMessage{Message: "history format v1 has no stream ops"}
			s.Skipped++
		}
		s.Cases = append(s.Cases, tc)
	}
	dec := junitCase{Name: "every partition decided", Classname: suite}
	if len(r.Unknown) > 0 {
		var names []string
		for _, u := range r.Unknown {
			names = append(names, u.Name)
		}
		dec.Skipped = &junitMessage{Message: fmt.Sprintf("%d partition(s) undecided within the timeout: %s", len(r.Unknown), strings.Join(names, ", "))}
		s.Skipped++
	}
	s.Cases = append(s.Cases, dec)
	s.Tests = len(s.Cases)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(junitSuites{Suites: []junitSuite{s}}); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
