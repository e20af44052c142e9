package campaign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/idemcheck/idemcheck/conform/report"
)

// Schema is the version of a merged campaign's JSON shape.
const Schema = 1

// file is what a JSON file may be: one run's report (schema_version) or a
// merged campaign (campaign_schema_version, its runs).
type file struct {
	RunSchema      int               `json:"schema_version"`
	CampaignSchema int               `json:"campaign_schema_version"`
	Replay         map[string]string `json:"replay"`
	Runs           []SeedRun         `json:"runs"`
	*report.Report
}

// Read loads the runs of every path: a run's JSON report, a merged
// campaign's JSON, or a directory searched for both (any depth). JSON files
// that are neither (an HTML report's assets) are counted in skipped.
func Read(paths []string) (runs []SeedRun, skipped []string, err error) {
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, err
		}
		if !st.IsDir() {
			rs, ok, err := readFile(p)
			if err != nil {
				return nil, nil, err
			}
			if !ok {
				return nil, nil, fmt.Errorf("%s: neither a run's JSON report (schema_version) nor a merged campaign (campaign_schema_version)", p)
			}
			runs = append(runs, rs...)
			continue
		}
		var files []string
		werr := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && filepath.Ext(path) == ".json" {
				files = append(files, path)
			}
			return nil
		})
		if werr != nil {
			return nil, nil, werr
		}
		sort.Strings(files)
		for _, f := range files {
			rs, ok, err := readFile(f)
			if err != nil {
				return nil, nil, err
			}
			if !ok {
				skipped = append(skipped, f)
			}
			runs = append(runs, rs...)
		}
	}
	return runs, skipped, nil
}

func readFile(path string) ([]SeedRun, bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false, err
	}
	var f file
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&f); err != nil {
		return nil, false, fmt.Errorf("%s: not JSON an idemcheck report can be: %v", path, err)
	}
	switch {
	case f.CampaignSchema > Schema:
		return nil, false, fmt.Errorf("%s: campaign_schema_version %d is newer than this idemcheck reads (%d)", path, f.CampaignSchema, Schema)
	case f.CampaignSchema > 0:
		return f.Runs, true, nil
	case f.RunSchema > report.SchemaVersion:
		return nil, false, fmt.Errorf("%s: schema_version %d is newer than this idemcheck reads (%d)", path, f.RunSchema, report.SchemaVersion)
	case f.RunSchema > 0 && f.Report != nil:
		return []SeedRun{fromReport(f.Report, f.Replay, path)}, true, nil
	}
	return nil, false, nil
}
