package survey

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGenerateOneTargetEndToEnd: the table generator on the fastest public
// target as CI can afford it: express-idempotency set up from npm into a
// fresh SURVEY_HOME, run once through idemcheck run from its folder, and
// its row written. Its default in-memory store forgets every key on a
// restart, which the service's ledger shows as a double booking (the PSP
// charged once); two concurrent copies are answered in progress and pass.
func TestGenerateOneTargetEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs npm and idemcheck run")
	}
	root, err := ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	var log bytes.Buffer
	tb, err := Generate(ctx, Options{Root: root, Targets: []string{"express-idempotency"}, Seed: 1,
		Home: t.TempDir(), Reports: filepath.Join(t.TempDir(), "reports"), Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if len(tb.Rows) != 1 || len(tb.Rows[0].Runs) != 1 || tb.Rows[0].Runs[0].Summary == nil {
		t.Fatalf("no run report:\n%s", log.String())
	}
	md, problems := tb.Markdown()
	if len(problems) > 0 {
		t.Errorf("problems: %v", problems)
	}
	run := tb.Rows[0].Runs[0]
	for id, want := range map[string]string{"A2": "pass", "A1": "pass", "S-restart": "violation double-booking,inconsistent-answer"} {
		if got := outcomeOf(run, id).key(); strings.TrimSpace(got) != want {
			t.Errorf("%s: %q, want %q\n%s", id, got, want, log.String())
		}
	}
	for _, want := range []string{
		"| [express-idempotency](",
		"`ci/survey --target express-idempotency --seed 1 --only S-restart`",
		"dist/defaults/inMemoryDataAdapter.js",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the table lacks %q\n%s", want, md)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "survey", "express-idempotency", "node_modules")); err == nil {
		t.Errorf("setup installed into the repository")
	}
}
