package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// TestJSONSchemaAndSeed: the run report carries schema_version 1 and the
// seed as a decimal string, exact above 2^53 (a float64 would round
// 9007199254740993 to ...992), and reads back into a Report.
func TestJSONSchemaAndSeed(t *testing.T) {
	const seed = uint64(1)<<53 + 1
	r := &Report{Config: "idemcheck.yaml", Seed: seed, Started: time.Unix(0, 0).UTC(), ExitCode: 1,
		Results: []scenario.Result{{ID: "A2", Level: scenario.Safety, Verdict: scenario.Violation}}}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteJSON(path, r); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if string(raw["schema_version"]) != "1" {
		t.Errorf("schema_version = %s, want 1", raw["schema_version"])
	}
	if want := strconv.Quote(strconv.FormatUint(seed, 10)); string(raw["seed"]) != want {
		t.Errorf("seed = %s, want %s", raw["seed"], want)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Seed != seed || back.ExitCode != 1 || len(back.Results) != 1 || back.Results[0].Verdict != scenario.Violation {
		t.Errorf("read back %+v", back)
	}
}
