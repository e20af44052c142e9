package survey

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// Summary is what the table needs of one run's JSON report (docs/REPORTS.md):
// each check's verdict, why, and the kinds of its findings.
type Summary struct {
	Profile  string            `json:"profile"`
	Seed     uint64            `json:"seed,string"`
	ExitCode int               `json:"exit_code"`
	Elapsed  int64             `json:"elapsed_ns"`
	Results  []CheckResult     `json:"results"`
	Replay   map[string]string `json:"replay"`
}

// CheckResult is one check of a run.
type CheckResult struct {
	ID       string    `json:"id"`
	Level    string    `json:"level"`
	Verdict  string    `json:"verdict"`
	Why      string    `json:"why"`
	Findings []Finding `json:"findings"`
}

// Deviations are the messages of a safety check's protocol findings.
func (c CheckResult) Deviations() []string {
	var out []string
	for _, f := range c.Findings {
		if c.Level == "safety" && f.Level == "protocol" {
			out = append(out, f.Message)
		}
	}
	return out
}

// Finding is what the table reads of one finding: its kind, its message and
// the PSP's charges behind it (the PSP judge's, or the checker's ops).
type Finding struct {
	Level      string `json:"level"`
	Kind       string `json:"kind"`
	Message    string `json:"message"`
	Intent     string `json:"intent"`
	PSPCharges []struct {
		Op string `json:"op"`
	} `json:"psp_charges"`
	Violation *struct {
		Ops []struct {
			Op string `json:"op"`
		} `json:"ops"`
	} `json:"checker_violation"`
}

// ChargeCount is how many PSP charges the finding's evidence holds: its
// psp_charges, else the charge ops of the checker's violation.
func (f Finding) ChargeCount() int {
	if len(f.PSPCharges) > 0 {
		return len(f.PSPCharges)
	}
	n := 0
	if f.Violation != nil {
		for _, o := range f.Violation.Ops {
			if o.Op == "charge" {
				n++
			}
		}
	}
	return n
}

// Kinds are the check's finding kinds, sorted, each once. A safety check's
// protocol findings (a deviation seen on the way) are not among them: the
// cell names what the safety check found, and the finding's section lists
// the deviations (Deviations).
func (c CheckResult) Kinds() []string {
	var out []string
	for _, f := range c.Findings {
		if c.Level == "safety" && f.Level == "protocol" {
			continue
		}
		out = append(out, f.Kind)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Result finds a check's result; ok is false when the run did not have it.
func (s *Summary) Result(id string) (CheckResult, bool) {
	for _, r := range s.Results {
		if r.ID == id {
			return r, true
		}
	}
	return CheckResult{}, false
}

// ReadSummary reads an idemcheck run --json report, gzip-compressed when
// its name ends in .gz (the reports kept in survey/runs).
func ReadSummary(path string) (*Summary, error) {
	b, err := readReport(path)
	if err != nil {
		return nil, err
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(s.Results) == 0 {
		return nil, fmt.Errorf("%s: the report has no results", path)
	}
	return &s, nil
}

// readReport reads a report file, uncompressing a .gz one.
func readReport(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil || !strings.HasSuffix(path, ".gz") {
		return b, err
	}
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	out, err := io.ReadAll(z)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return out, nil
}
