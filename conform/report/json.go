package report

import (
	"encoding/json"
	"os"
)

// WriteJSON writes the whole report, evidence included (Authorization redacted).
func WriteJSON(path string, r *Report) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
