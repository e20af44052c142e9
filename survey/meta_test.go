package survey

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFromReportsKeepsTheRunsMetadata: a table written again from kept
// reports says what the survey that ran them said (date, version, command,
// wall time), reads every seed's report, and names a missing one.
func TestFromReportsKeepsTheRunsMetadata(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"django-idempotency-key-1.json.gz", "django-idempotency-key-2.json.gz"} {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := &Table{Date: "2026-12-04", Version: "v9-test", Wall: 95 * time.Second, Command: "ci/survey --runs 3"}
	if err := WriteMeta(dir, want); err != nil {
		t.Fatal(err)
	}
	root, err := ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	got, err := FromReports(Options{Root: root, From: dir, Targets: []string{"django-idempotency-key"}, Runs: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got.Date != want.Date || got.Version != want.Version || got.Wall != want.Wall || got.Command != want.Command {
		t.Errorf("meta %q %q %s %q, want %q %q %s %q", got.Date, got.Version, got.Wall, got.Command, want.Date, want.Version, want.Wall, want.Command)
	}
	runs := got.Rows[0].Runs
	if len(runs) != 3 || runs[0].Summary == nil || runs[1].Summary == nil {
		t.Fatalf("runs %+v: want seeds 1 and 2 read", runs)
	}
	if runs[2].Summary != nil || !strings.Contains(runs[2].Err, "django-idempotency-key-3.json") {
		t.Errorf("seed 3 has no report, but the run says %q", runs[2].Err)
	}
	if _, err := FromReports(Options{Root: root, From: t.TempDir()}); err == nil || !strings.Contains(err.Error(), metaFile) {
		t.Errorf("a folder with no %s: %v", metaFile, err)
	}
}

// TestControlRowMustPass: on a control row an inconclusive or an error
// cell is a problem, as a violation is; n/a with its reason is not.
func TestControlRowMustPass(t *testing.T) {
	c := cell{id: "A2", outcomes: []outcome{{verdict: "pass"}, {verdict: "inconclusive"}, {verdict: "error"}, {verdict: "n/a"}}}
	got := controlProblems("control-x", c)
	want := []Problem{"control row control-x: A2 inconclusive in 1 run(s)", "control row control-x: A2 error in 1 run(s)"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("problems %q, want %q", got, want)
	}
	if p := controlProblems("control-x", cell{id: "A2", outcomes: []outcome{{verdict: "pass"}, {verdict: "n/a"}}}); len(p) != 0 {
		t.Errorf("pass and n/a gave problems %q", p)
	}
}
