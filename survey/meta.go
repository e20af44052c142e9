package survey

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// metaFile, in a reports folder, records what a table written from it again
// (--from) must say of the runs: when, by which idemcheck, how long, and
// which targets each survey ran (a kept folder may hold several surveys'
// runs, each target's from one).
const metaFile = "survey-meta.json"

// FullCommand is the survey that regenerates docs/SURVEY.md and keeps the
// reports behind it in the repository.
const FullCommand = "ci/survey --runs 5 --keep survey/runs"

// Meta is one survey's record in a reports folder.
type Meta struct {
	Date    string   `json:"date"`
	Version string   `json:"version"`
	WallS   float64  `json:"wall_s"`
	Command string   `json:"command"`
	Targets []string `json:"targets,omitempty"`
}

func metaOf(t *Table) Meta {
	m := Meta{Date: t.Date, Version: t.Version, WallS: t.Wall.Seconds(), Command: t.Command}
	for _, r := range t.Rows {
		m.Targets = append(m.Targets, r.About.Name)
	}
	return m
}

// WriteMeta records t's date, version, wall time, command and targets in
// dir, replacing what the folder said of those targets.
func WriteMeta(dir string, t *Table) error {
	old, err := readMeta(dir)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	m := metaOf(t)
	var out []Meta
	for _, o := range old {
		// An entry that names no targets (an older folder) covered them all.
		if len(o.Targets) == 0 {
			continue
		}
		o.Targets = slices.DeleteFunc(o.Targets, func(n string) bool { return slices.Contains(m.Targets, n) })
		if len(o.Targets) > 0 {
			out = append(out, o)
		}
	}
	b, err := json.MarshalIndent(append(out, m), "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, metaFile), append(b, '\n'), 0o644)
}

// readMeta reads dir's records: a list, or the one object older folders hold.
func readMeta(dir string) ([]Meta, error) {
	path := filepath.Join(dir, metaFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var list []Meta
	if err := json.Unmarshal(b, &list); err == nil {
		return list, nil
	}
	var one Meta
	if err := json.Unmarshal(b, &one); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return []Meta{one}, nil
}

// FromReports builds the table of kept run reports (a --reports or --keep
// folder of earlier surveys) without running anything: the findings.yaml
// files are read as they are now, the runs as they were.
func FromReports(o Options) (*Table, error) {
	metas, err := readMeta(o.From)
	if err != nil {
		return nil, fmt.Errorf("--from %s: %w (a folder that an earlier survey wrote with --reports or --keep)", o.From, err)
	}
	if len(metas) == 0 {
		return nil, fmt.Errorf("--from %s: %s records no survey", o.From, metaFile)
	}
	targets, err := o.selected()
	if err != nil {
		return nil, err
	}
	kinds, err := KindDocs(filepath.Join(o.Root, "docs"))
	if err != nil {
		return nil, err
	}
	m := metas[len(metas)-1]
	t := &Table{Date: m.Date, Version: m.Version, KindDocs: kinds, Root: o.Root, Wall: time.Duration(m.WallS * float64(time.Second)),
		Command: m.Command, Surveys: metas}
	for _, a := range targets {
		row := Row{About: a}
		if row.Findings, err = LoadFindings(a.Dir); err != nil {
			return nil, err
		}
		kept := 0
		for _, seed := range o.keptSeeds(a.Name) {
			run := Run{Target: a.Name, Seed: seed}
			path := reportPath(o.From, a.Name, seed)
			if path == "" {
				run.Err = fmt.Sprintf("no report %s-%d.json or .json.gz in %s", a.Name, seed, o.From)
			} else if run.Summary, err = ReadSummary(path); err != nil {
				run.Summary, run.Err = nil, err.Error()
			} else {
				kept++
			}
			row.Runs = append(row.Runs, run)
		}
		// A target with no kept report at all is left out of a table of
		// every target and said so in its header, never shown as a row of
		// errors; one asked for by name is shown, errors and all.
		if kept == 0 && len(o.Targets) == 0 {
			t.Missing = append(t.Missing, a.Name)
			continue
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// keptSeeds are the seeds a table from kept reports reads for a target:
// --seed and the --runs after it, or, without --runs (Runs 0), every seed
// the folder holds a report of, so targets kept by different surveys keep
// their own number of runs.
func (o Options) keptSeeds(target string) []uint64 {
	if o.Runs > 0 {
		var out []uint64
		for i := range o.Runs {
			out = append(out, o.Seed+uint64(i))
		}
		return out
	}
	matches, _ := filepath.Glob(filepath.Join(o.From, target+"-*.json*"))
	var out []uint64
	for _, m := range matches {
		base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(m), ".gz"), ".json")
		if n, err := strconv.ParseUint(strings.TrimPrefix(base, target+"-"), 10, 64); err == nil && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// reportPath is dir's report of target and seed, plain or compressed; ""
// when it has neither.
func reportPath(dir, target string, seed uint64) string {
	for _, ext := range []string{".json", ".json.gz"} {
		p := filepath.Join(dir, fmt.Sprintf("%s-%d%s", target, seed, ext))
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}
