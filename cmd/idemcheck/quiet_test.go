package main

import (
	"os"
	"regexp"
	"testing"
)

// testQuiet is the recount's quiet period in the table tests. The probe
// writes 30 s, which a user's run keeps; what these tests prove (the
// probed config's checks pass a correct variant and name each flaw, none
// of them a late effect) does not depend on it, and the tests that run the
// probed config as written (TestProbedConfigPassesTheCorrectService,
// TestProbedConfigOfARunningService) keep the 30 s.
const testQuiet = "3s"

var quiesceLine = regexp.MustCompile(`(?m)^quiesce: [0-9]+[a-z]+`)

// shortQuiet shortens the quiet period of a probed config; a config without
// the line fails, so a probe that stops writing it is noticed.
func shortQuiet(t *testing.T, cfg string) {
	t.Helper()
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !quiesceLine.Match(b) {
		t.Fatalf("the probed config has no quiesce line to shorten:\n%s", b)
	}
	if err := os.WriteFile(cfg, quiesceLine.ReplaceAll(b, []byte("quiesce: "+testQuiet)), 0o644); err != nil {
		t.Fatal(err)
	}
}
