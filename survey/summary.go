package survey

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
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
	ID       string `json:"id"`
	Level    string `json:"level"`
	Verdict  string `json:"verdict"`
	Why      string `json:"why"`
	Findings []struct {
		Kind string `json:"kind"`
	} `json:"findings"`
}

// Kinds are the check's finding kinds, sorted, each once.
func (c CheckResult) Kinds() []string {
	var out []string
	for _, f := range c.Findings {
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

// ReadSummary reads an idemcheck run --json report.
func ReadSummary(path string) (*Summary, error) {
	b, err := os.ReadFile(path)
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
