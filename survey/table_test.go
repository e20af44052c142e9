package survey

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// recorded builds a row from a target's folder and run reports recorded
// from real runs (survey/testdata, evidence trimmed).
func recorded(t *testing.T, name string, files ...string) Row {
	t.Helper()
	a, err := LoadAbout(name)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := LoadFindings(name)
	if err != nil {
		t.Fatal(err)
	}
	row := Row{About: a, Findings: ex}
	for _, f := range files {
		s, err := ReadSummary(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		row.Runs = append(row.Runs, Run{Target: name, Seed: s.Seed, Summary: s})
	}
	return row
}

// TestTableFromRecordedRuns: each cell is its check's verdict with its
// kinds, a violation links its section with the replay command and the
// mechanism, an n/a carries the run's reason, and two runs that agree are
// said to agree.
//
// The runs are the ones recorded before the re-probe of 2026-12-06 (their
// configs still took a 502 for in progress): their A5 holds a protocol
// deviation inside a safety check, which the table must show apart. The
// findings.yaml they are read with is today's, so the table's problems are
// not asserted here (TestLinksAreRelativeOrCited does, on today's runs).
func TestTableFromRecordedRuns(t *testing.T) {
	tb := &Table{Date: "2026-12-04", Version: "v-test", Command: "ci/survey --runs 2", KindDocs: kindDocs(t), Rows: []Row{
		recorded(t, "django-idempotency-key", "probe-2026-12-04/django-idempotency-key-1.json.gz", "probe-2026-12-04/django-idempotency-key-2.json.gz"),
		recorded(t, "axum-idempotent", "probe-2026-12-04/axum-idempotent-1.json.gz", "probe-2026-12-04/axum-idempotent-2.json.gz"),
	}}
	md, _ := tb.Markdown()
	for _, want := range []string{
		"with idemcheck v-test: 2 run(s) of each target, seeds 1, 2",
		"| [django-idempotency-key](",
		// The ledger's rows beside the PSP's charges: a double booking, not a double charge.
		" **violation**: [double-booking](SCENARIOS.md#kind-double-booking) (ledger 4 rows, PSP 1 charge), [double-execution](SCENARIOS.md#kind-double-execution), [failed-but-charged](HISTORY.md#failed-but-charged), [inconsistent-answer](HISTORY.md#inconsistent-answer) ([how](#finding-django-idempotency-key-a2))[^django-idempotency-key-A2-note] |",
		// A pass that rests on the survey's handler says so.
		" pass[^django-idempotency-key-S-5xx-after-charge-note] |",
		// Protocol violations are in the profile cell, by name, with their kinds.
		"custom: 7 pass, 1 **violation** (P-conflict: [double-booking](SCENARIOS.md#kind-double-booking), [inconsistent-answer](HISTORY.md#inconsistent-answer)), 5 deviation (P-replay, P-mismatch-no-poison, P-empty-key, P-long-key, P-header-case), 5 n/a |",
		"- **Against its own documentation**: \"The following settings deal with the process/thread lock",
		"- **Report draft** (to send upstream): [survey/reports/django-idempotency-key-lock-covers-lookup-only.md](../survey/reports/django-idempotency-key-lock-covers-lookup-only.md)",
		"- also seen, a protocol deviation and not a safety finding: key ",
		"<a id=\"finding-django-idempotency-key-a2\"></a>django-idempotency-key 1.3.0: A2",
		"concurrent copies in 2 of 2 run(s). Replay: `ci/survey --target django-idempotency-key --seed 1 --only A2`",
		"`cd survey/django-idempotency-key && idemcheck run --config idemcheck.yaml --seed 1 --only A2`",
		"Every cell, the protocol vectors' included, was the same in all runs of its target (2 runs).",
		"[^django-idempotency-key-P-expiry]: django-idempotency-key P-expiry: ",
		"django-idempotency-key 1.3.0: other checks that failed",
		"- P-conflict (violation), **double-booking**, at `idempotency_key/middleware.py` line 114: ",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the table lacks %q\n%s", want, md)
		}
	}
	// Every column header links the check's section.
	for _, c := range Columns {
		if !strings.Contains(md, "["+c.ID+"](SCENARIOS.md#run-"+c.ID+") "+c.Fault) {
			t.Errorf("no column for %s", c.ID)
		}
	}
}

func kindDocs(t *testing.T) map[string]string {
	t.Helper()
	k, err := KindDocs("../docs")
	if err != nil {
		t.Fatal(err)
	}
	if k["double-charge"] != "HISTORY.md#double-charge" || k["ledger-missing"] != "SCENARIOS.md#kind-ledger-missing" {
		t.Fatalf("kind docs: %v", k)
	}
	return k
}

// TestTableNamesWhatItCannotVouchFor: a violation kind without an explanation,
// an explanation of a check and kind no run found, and any violation on a control
// row are problems; a cell whose runs disagree says how often each way.
func TestTableNamesWhatItCannotVouchFor(t *testing.T) {
	row := recorded(t, "axum-idempotent", "axum-idempotent-1.json.gz", "axum-idempotent-2.json.gz")
	// A5's explanation dropped, one of a check no run failed added.
	row.Findings = slices.DeleteFunc(row.Findings, func(e Explanation) bool { return e.Check == "A5" || e.Check == "P-conflict" })
	// An explanation of a kind no run found, on a check that did fail, stands for nothing either.
	row.Findings = append(row.Findings, Explanation{Check: "A1", Kind: "double-charge", File: "src/lib.rs", Line: 1, Why: "x"},
		Explanation{Check: "A2", Kind: "lost-effect", File: "src/lib.rs", Line: 1, Why: "x"})
	// The second run's A2 passed: the cell flips.
	flip := *row.Runs[1].Summary
	flip.Results = append([]CheckResult(nil), flip.Results...)
	for i := range flip.Results {
		if flip.Results[i].ID == "A2" {
			flip.Results[i].Verdict, flip.Results[i].Findings = "pass", nil
		}
	}
	row.Runs[1].Summary = &flip
	row.About.Control = true
	md, problems := (&Table{Rows: []Row{row}}).Markdown()
	text := strings.Join(func() []string {
		var s []string
		for _, p := range problems {
			s = append(s, string(p))
		}
		return s
	}(), "\n")
	for _, want := range []string{
		"axum-idempotent A5 mismatch-accepted: a violation with no explanation in findings.yaml",
		// A check outside the columns is not dropped unseen either.
		"axum-idempotent P-conflict double-booking: a violation with no explanation in findings.yaml",
		"axum-idempotent: findings.yaml explains A1 double-charge, which no run found",
		"axum-idempotent: findings.yaml explains A2 lost-effect, which no run found",
		"control row axum-idempotent: A2 violation in 1 run(s)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("problems lack %q:\n%s", want, text)
		}
	}
	if !strings.Contains(md, "| flips: ") || !strings.Contains(md, "- axum-idempotent A2: ") || !strings.Contains(md, "pass 1/2") {
		t.Errorf("the flipping A2 cell is not shown as such:\n%s", md)
	}
}

// TestRowOfAFailedSetup: a target whose setup failed is a row of errors
// naming why, never an empty or passing row.
func TestRowOfAFailedSetup(t *testing.T) {
	a, err := LoadAbout("express-idempotency")
	if err != nil {
		t.Fatal(err)
	}
	md, _ := (&Table{Rows: []Row{{About: a, SetupErr: "npm ci: E404\nmore"}}}).Markdown()
	if strings.Contains(md, "| pass |") || !strings.Contains(md, "express-idempotency A2: setup failed: npm ci: E404") {
		t.Errorf("a failed setup is not named:\n%s", md)
	}
}

// TestAboutIsChecked: about.yaml must name its folder, its version and a
// storage the runner can give.
func TestAboutIsChecked(t *testing.T) {
	all := allTargets(t)
	if len(all) < 6 {
		t.Errorf("%d targets, want at least 6", len(all))
	}
	langs := map[string]bool{}
	for _, a := range all {
		langs[a.Language] = true
	}
	if len(langs) < 3 {
		t.Errorf("languages %v, want at least 3", langs)
	}
}
