package survey

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// metaFile, in a reports folder, records what a table written from it again
// (--from) must say of the runs: when, by which idemcheck, and how long.
const metaFile = "survey-meta.json"

type meta struct {
	Date    string  `json:"date"`
	Version string  `json:"version"`
	WallS   float64 `json:"wall_s"`
	Command string  `json:"command"`
}

// WriteMeta records t's date, version, wall time and command in dir.
func WriteMeta(dir string, t *Table) error {
	b, err := json.MarshalIndent(meta{Date: t.Date, Version: t.Version, WallS: t.Wall.Seconds(), Command: t.Command}, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, metaFile), append(b, '\n'), 0o644)
}

// FromReports builds the table of kept run reports (a --reports folder of an
// earlier survey) without running anything: the findings.yaml files are
// read as they are now, the runs as they were.
func FromReports(o Options) (*Table, error) {
	b, err := os.ReadFile(filepath.Join(o.From, metaFile))
	if err != nil {
		return nil, fmt.Errorf("--from %s: %w (a folder that an earlier survey wrote with --reports)", o.From, err)
	}
	var m meta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(o.From, metaFile), err)
	}
	targets, err := o.selected()
	if err != nil {
		return nil, err
	}
	kinds, err := KindDocs(filepath.Join(o.Root, "docs"))
	if err != nil {
		return nil, err
	}
	t := &Table{Date: m.Date, Version: m.Version, KindDocs: kinds, Wall: time.Duration(m.WallS * float64(time.Second)), Command: m.Command}
	for _, a := range targets {
		row := Row{About: a}
		if row.Findings, err = LoadFindings(a.Dir); err != nil {
			return nil, err
		}
		for i := range max(o.Runs, 1) {
			seed := o.Seed + uint64(i)
			run := Run{Target: a.Name, Seed: seed}
			path := filepath.Join(o.From, fmt.Sprintf("%s-%d.json", a.Name, seed))
			if run.Summary, err = ReadSummary(path); err != nil {
				run.Summary, run.Err = nil, err.Error()
			}
			row.Runs = append(row.Runs, run)
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}
