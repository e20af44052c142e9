package survey

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// TestFromKeptReports: --keep's folder (compressed reports, one record per
// survey naming its targets) is read back by --from without --runs, each
// target with the seeds kept of it, and a target with none is named, not
// shown as a row of errors.
func TestFromKeptReports(t *testing.T) {
	root, err := ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	work, dir := t.TempDir(), t.TempDir()
	rowOf := func(name string, seeds ...uint64) Row {
		a, err := LoadAbout(name)
		if err != nil {
			t.Fatal(err)
		}
		row := Row{About: a}
		for _, seed := range seeds {
			s, err := ReadSummary(filepath.Join("testdata", fmt.Sprintf("%s-%d.json.gz", name, seed)))
			if err != nil {
				t.Fatal(err)
			}
			b, err := readReport(filepath.Join("testdata", fmt.Sprintf("%s-%d.json.gz", name, seed)))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(work, fmt.Sprintf("%s-%d.json", name, seed)), b, 0o644); err != nil {
				t.Fatal(err)
			}
			row.Runs = append(row.Runs, Run{Target: name, Seed: seed, Summary: s})
		}
		return row
	}
	// Two surveys keep into one folder: the second replaces the first's
	// record of the target it ran again.
	first := &Table{Date: "2026-12-05", Version: "v1", Command: "ci/survey --runs 2 --keep survey/runs", Wall: time.Minute,
		Rows: []Row{rowOf("django-idempotency-key", 1, 2), rowOf("axum-idempotent", 1, 2)}}
	second := &Table{Date: "2026-12-06", Version: "v2", Command: "ci/survey --target axum-idempotent --keep survey/runs", Wall: time.Second,
		Rows: []Row{rowOf("axum-idempotent", 1)}}
	for _, tb := range []*Table{first, second} {
		if err := Keep(dir, tb, work); err != nil {
			t.Fatal(err)
		}
	}
	metas, err := readMeta(dir)
	if err != nil || len(metas) != 2 || strings.Join(metas[0].Targets, ",") != "django-idempotency-key" || metas[1].Version != "v2" {
		t.Fatalf("records %+v: %v", metas, err)
	}
	got, err := FromReports(Options{Root: root, From: dir})
	if err != nil {
		t.Fatal(err)
	}
	seeds := map[string]int{}
	for _, r := range got.Rows {
		for _, run := range r.Runs {
			if run.Summary == nil {
				t.Errorf("%s seed %d: %s", r.About.Name, run.Seed, run.Err)
			}
		}
		seeds[r.About.Name] = len(r.Runs)
	}
	if seeds["django-idempotency-key"] != 2 || seeds["axum-idempotent"] != 2 || len(got.Rows) != 2 {
		t.Errorf("rows %v, want django and axum with 2 kept runs each", seeds)
	}
	if !slices.Contains(got.Missing, "express-idempotency") || slices.Contains(got.Missing, "axum-idempotent") {
		t.Errorf("missing %v", got.Missing)
	}
	md, _ := got.Markdown()
	for _, want := range []string{"- `ci/survey --runs 2 --keep survey/runs` on 2026-12-05 with idemcheck v1 (1m0s in all): django-idempotency-key: 2 run(s) each, seeds 1, 2",
		"**Not in this table** (no kept run report; the full survey, `ci/survey --runs 5 --keep survey/runs`, runs them): "} {
		if !strings.Contains(md, want) {
			t.Errorf("the table lacks %q", want)
		}
	}
}
