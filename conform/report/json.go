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
// redacted), with its schema_version first.
func WriteJSON(path string, r *Report) error {
	b, err := json.MarshalIndent(struct {
		SchemaVersion int `json:"schema_version"`
		*Report
	}{SchemaVersion, r}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
