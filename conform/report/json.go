package report

import (
	"encoding/json"
	"os"
)

// SchemaVersion is the version of the run report's JSON shape
// (docs/REPORTS.md). Fields are only ever added within a version; a field
// removed or changing meaning bumps it.
const SchemaVersion = 1

// WriteJSON writes the whole report, evidence included (Authorization
// redacted, idemcheck's internal headers left out), with its
// schema_version first, the command that replays each failing check, and
// each check's section of docs/SCENARIOS.md.
func WriteJSON(path string, r *Report) error {
	cp := *r
	cp.Results = cleanResults(r.Results)
	b, err := json.MarshalIndent(struct {
		SchemaVersion int `json:"schema_version"`
		*Report
		Replay    map[string]string `json:"replay"`
		RuleLinks map[string]string `json:"rule_links"`
		Summary   Coverage          `json:"summary"`
	}{SchemaVersion, &cp, r.Replays(), r.RuleLinks(), r.Coverage()}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
