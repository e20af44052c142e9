package report

import (
	"encoding/xml"
	"fmt"
	"os"
	"strings"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     float64     `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      float64       `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes one suite per level; a protocol deviation that does not
// gate the run is reported as passing with its finding in system-out, so CI
// dashboards stay green exactly when the exit code is 0.
func WriteJUnit(path string, r *Report) error {
	suites := map[scenario.Level]*junitSuite{
		scenario.Safety:   {Name: "idemcheck.safety"},
		scenario.Protocol: {Name: "idemcheck.protocol"},
	}
	for _, res := range r.Results {
		s := suites[res.Level]
		c := junitCase{Name: res.ID + " " + res.Title, Classname: "idemcheck." + string(res.Level), Time: res.Elapsed.Seconds()}
		detail := findingsText(res) + "docs: " + CheckDoc(res.ID) + "\n"
		if cmd := r.Replay(res.ID); cmd != "" && r.Fails(res) {
			detail += "replay: " + cmd + "\n"
		}
		switch {
		case res.Verdict == scenario.NA && !r.Fails(res):
			c.Skipped = &junitMessage{Message: res.Why}
			s.Skipped++
		case res.Verdict == scenario.Errored || res.Verdict == scenario.Inconclusive:
			c.Error = &junitMessage{Message: res.Why, Type: "error", Text: detail}
			s.Errors++
		case r.Fails(res):
			c.Failure = &junitMessage{Message: oneLine(res.Why, 300), Type: kinds(res), Text: detail}
			s.Failures++
		default:
			c.SystemOut = strings.TrimSpace(res.Why + "\n" + detail)
		}
		s.Tests++
		s.Time += c.Time
		s.Cases = append(s.Cases, c)
	}
	out := junitSuites{Suites: []junitSuite{*suites[scenario.Safety], *suites[scenario.Protocol]}}
	b, err := xml.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o644)
}

func kinds(res scenario.Result) string {
	var ks []string
	for _, f := range res.Findings {
		ks = append(ks, f.Kind)
	}
	return strings.Join(ks, ",")
}

func findingsText(res scenario.Result) string {
	var b strings.Builder
	for _, f := range res.Findings {
		fmt.Fprintf(&b, "[%s] %s: %s\n  rule: %s\n", f.Level, f.Kind, f.Message, f.Rule)
		for _, a := range res.Attempts {
			for _, s := range f.Seqs {
				if s == a.Seq {
					fmt.Fprintf(&b, "  #%d %s %s -> %d %s %s %s\n", a.Seq, a.Method, a.URL, a.Status, a.Outcome, a.PaymentID, a.Err)
				}
			}
		}
		for _, c := range f.Charges {
			fmt.Fprintf(&b, "  PSP charge %s key %q amount %d\n", chargeID(c), c.Input.PSPKey, amount(c))
		}
	}
	return b.String()
}
