package survey

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFindingsAreJudged: every target's findings.yaml loads, which means
// every violated check says once whether it contradicts the
// implementation's documentation or follows from a documented behaviour
// judged by this project's rule, with its quotes and its report draft, and
// that draft exists.
func TestFindingsAreJudged(t *testing.T) {
	all := allTargets(t)
	for _, a := range all {
		ex, err := LoadFindings(a.Dir)
		if err != nil {
			t.Error(err)
			continue
		}
		for _, e := range ex {
			if e.Report == "" {
				continue
			}
			if _, err := os.Stat(filepath.Join("..", e.Report)); err != nil {
				t.Errorf("%s %s: report draft %s: %v", a.Name, e.Check, e.Report, err)
			}
		}
	}
}
