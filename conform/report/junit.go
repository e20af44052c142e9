package report

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/idemcheck/idemcheck/checker/junit"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// WriteJUnit writes one suite per level; a protocol deviation that does not
// gate the run is reported as passing with its finding in system-out, so CI
// dashboards stay green exactly when the exit code is 0.
func WriteJUnit(path string, r *Report) error {
	suites := map[scenario.Level]*junit.Suite{
		scenario.Safety:   {Name: "idemcheck.safety"},
		scenario.Protocol: {Name: "idemcheck.protocol"},
	}
	elapsed := map[scenario.Level]float64{}
	for _, res := range r.Results {
		c := junit.Case{Name: res.ID + " " + res.Title, Classname: "idemcheck." + string(res.Level), Time: junit.Seconds(res.Elapsed.Seconds())}
		detail := findingsText(res) + "docs: " + CheckDoc(res.ID) + "\n"
		if cmd := r.Replay(res.ID); cmd != "" && r.Fails(res) {
			detail += "replay: " + cmd + "\n"
		}
		switch {
		case res.Verdict == scenario.NA && !r.Fails(res):
			c.Skipped = &junit.Message{Message: res.Why}
		case res.Verdict == scenario.Errored || res.Verdict == scenario.Inconclusive:
			c.Error = &junit.Message{Message: res.Why, Type: "error", Body: detail}
		case r.Fails(res):
			c.Failure = &junit.Message{Message: oneLine(res.Why, 300), Type: kinds(res), Body: detail}
		default:
			c.SystemOut = strings.TrimSpace(res.Why + "\n" + detail)
		}
		suites[res.Level].Add(c)
		elapsed[res.Level] += res.Elapsed.Seconds()
	}
	for l, s := range suites {
		s.Time = junit.Seconds(elapsed[l])
	}
	var b bytes.Buffer
	if err := junit.Write(&b, *suites[scenario.Safety], *suites[scenario.Protocol]); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
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
