package survey

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestNoKindBeyondItsEvidence: in every recorded report (testdata) and every
// kept one (survey/runs), a double-charge holds two PSP charges or more and a
// double-booking more ledger rows than PSP charges; a report that names a
// double-charge from the ledger alone (what the checker wrote before
// double-booking existed) is a problem of the table, as is a double-booking
// whose ledger and PSP agree.
func TestNoKindBeyondItsEvidence(t *testing.T) {
	kept, _ := filepath.Glob("runs/*.json.gz")
	recordedFiles, _ := filepath.Glob("testdata/*.json.gz")
	if len(recordedFiles) < 4 {
		t.Fatalf("recorded reports: %v", recordedFiles)
	}
	for _, path := range append(recordedFiles, kept...) {
		s, err := ReadSummary(path)
		if err != nil {
			t.Fatal(err)
		}
		row := Row{About: About{Name: filepath.Base(path)}, Runs: []Run{{Seed: s.Seed, Summary: s}}}
		if p := evidenceProblems(row); len(p) > 0 {
			t.Errorf("%s: %q", path, p)
		}
	}

	row := recorded(t, "axum-idempotent", "axum-idempotent-1.json.gz")
	doctored := *row.Runs[0].Summary
	doctored.Results = nil
	var booked, charged bool
	for _, res := range row.Runs[0].Summary.Results {
		res.Findings = append([]Finding(nil), res.Findings...)
		for i, f := range res.Findings {
			switch {
			case f.Kind == "double-booking" && res.ID == "A2":
				res.Findings[i].Kind = "double-charge" // the old label of a ledger count
				charged = true
			case f.Kind == "double-booking" && res.ID == "S-restart":
				res.Findings[i].Message = strings.Replace(f.Message, "the PSP has 1", "the PSP has 2", 1)
				booked = true
			}
		}
		doctored.Results = append(doctored.Results, res)
	}
	if !charged || !booked {
		t.Fatal("the recorded axum-idempotent run has no A2 and S-restart double-booking to doctor")
	}
	row.Runs[0].Summary = &doctored
	got := evidenceProblems(row)
	if len(got) != 2 || !strings.Contains(string(got[0]), "A2: double-charge whose evidence holds 1 PSP charge(s)") ||
		!strings.Contains(string(got[1]), "S-restart: double-booking with 2 ledger row(s) and 2 PSP charge(s)") {
		t.Errorf("problems %q", got)
	}
	if _, problems := (&Table{Rows: []Row{row}}).Markdown(); !strings.Contains(strings.Join(func() []string {
		var s []string
		for _, p := range problems {
			s = append(s, string(p))
		}
		return s
	}(), "\n"), "double-charge whose evidence holds 1") {
		t.Errorf("the table does not name the doctored double-charge: %q", problems)
	}
}
