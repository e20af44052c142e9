package campaign

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// WriteJSON writes the merged campaign; merge reads it back as it reads a
// run's report.
func WriteJSON(path string, c *Campaign) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Print is the console's answer: the verdict, each distinct finding with
// its seeds, then what could not be judged.
func Print(w io.Writer, c *Campaign, skipped int) {
	fmt.Fprintf(w, "campaign: %d run(s): %d passed, %d failed", c.Seeds, len(c.Passed), len(c.Failed))
	if len(c.Unjudged) > 0 {
		fmt.Fprintf(w, " (%d without a finding: inconclusive or error)", len(c.Unjudged))
	}
	fmt.Fprintln(w)
	if skipped > 0 {
		fmt.Fprintf(w, "campaign: %d JSON file(s) were not idemcheck reports and were skipped\n", skipped)
	}
	for i, f := range c.Findings {
		fmt.Fprintf(w, "finding %d: %s %s (%s) in %d seed(s): %s\n", i+1, f.Check, f.Kind, f.Level, len(f.Seeds), seedList(f.Seeds))
		for _, m := range f.Mechanisms {
			fmt.Fprintf(w, "  after %s: %d seed(s): %s\n", m.Mechanism, len(m.Seeds), seedList(m.Seeds))
		}
		if !f.First.IsZero() {
			fmt.Fprintf(w, "  first detected %s, %s into seed %d\n", f.First.Format("2006-01-02 15:04:05.000 MST"), f.After.Round(1e6), f.FirstSeed)
		}
		fmt.Fprintf(w, "  %s\n", firstLine(f.Message))
		if f.Replay != "" {
			fmt.Fprintf(w, "  replay: %s\n", f.Replay)
		}
	}
	for _, u := range c.Unjudged {
		for _, ch := range u.Checks {
			fmt.Fprintf(w, "seed %d: %s %s: %s\n", u.Seed, ch.Check, ch.Verdict, firstLine(ch.Why))
		}
		if len(u.Checks) == 0 {
			fmt.Fprintf(w, "seed %d: failed with no finding and no check to blame (see %s)\n", u.Seed, sourceOf(c, u.Seed))
		}
	}
	if len(c.Replayed) > 0 {
		fmt.Fprintf(w, "campaign: seeds run more than once with different results: %s (not reproducible: read both reports)\n", seedList(c.Replayed))
	}
	if c.Coverage != nil {
		if pct, ok := c.Coverage.Figure(); ok {
			fmt.Fprintf(w, "campaign: chaos coverage summed over seeds %.0f%% (%d of %d cells)\n", pct, c.Coverage.Covered, c.Coverage.Allowed)
			for _, l := range c.Coverage.Lines() {
				fmt.Fprintf(w, "  %s\n", l)
			}
		}
	}
	verdict := "PASS"
	if c.ExitCode != 0 {
		verdict = "FAIL"
	}
	if c.Seeds == 0 {
		verdict = "INCONCLUSIVE: no run was read"
	}
	fmt.Fprintf(w, "%s: %d distinct finding(s) in %d of %d seed(s)\n", verdict, len(c.Findings), c.FailedRuns, c.Seeds)
}

func sourceOf(c *Campaign, seed uint64) string {
	for _, r := range c.Runs {
		if r.Seed == seed {
			return r.Source
		}
	}
	return "its report"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// seedList writes seeds with runs of consecutive seeds as ranges (1-4, 9).
func seedList(seeds []uint64) string {
	var parts []string
	for i := 0; i < len(seeds); {
		j := i
		for j+1 < len(seeds) && seeds[j+1] == seeds[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", seeds[i], seeds[j]))
		} else {
			parts = append(parts, fmt.Sprint(seeds[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

type junitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// WriteJUnit writes one test case per distinct finding (failed), one per
// run that failed without a finding, and one for the seeds that passed.
func WriteJUnit(path string, c *Campaign) error {
	s := junitSuite{Name: "idemcheck campaign"}
	for _, f := range c.Findings {
		body := fmt.Sprintf("seeds: %s\nfirst detected: %s (seed %d)\n%s\nreplay: %s\n", seedList(f.Seeds), f.First.Format("2006-01-02T15:04:05.000Z07:00"), f.FirstSeed, f.Message, f.Replay)
		for _, m := range f.Mechanisms {
			body += fmt.Sprintf("after %s: seeds %s\n", m.Mechanism, seedList(m.Seeds))
		}
		s.Cases = append(s.Cases, junitCase{Name: f.Check + " " + f.Kind, ClassName: "campaign.findings",
			Failure: &junitFailure{Message: fmt.Sprintf("%s in %d seed(s)", f.Kind, len(f.Seeds)), Type: f.Kind, Body: body}})
	}
	for _, u := range c.Unjudged {
		var lines []string
		for _, ch := range u.Checks {
			lines = append(lines, ch.Check+" "+ch.Verdict+": "+ch.Why)
		}
		s.Cases = append(s.Cases, junitCase{Name: fmt.Sprintf("seed %d", u.Seed), ClassName: "campaign.unjudged",
			Failure: &junitFailure{Message: "failed without a finding", Type: "inconclusive", Body: strings.Join(lines, "\n")}})
	}
	s.Cases = append(s.Cases, junitCase{Name: fmt.Sprintf("%d seed(s) passed: %s", len(c.Passed), seedList(c.Passed)), ClassName: "campaign.passed"})
	s.Tests = len(s.Cases)
	for _, k := range s.Cases {
		if k.Failure != nil {
			s.Failures++
		}
	}
	b, err := xml.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o644)
}
