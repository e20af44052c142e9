package checkcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The shape kinds (docs/HISTORY.md (C2 and C3)) read and judged from files, as a
// user checking their own likes or mail logs would.
func TestShapeHistories(t *testing.T) {
	td := filepath.Join("..", "testdata")
	if code, out, errs := run(filepath.Join(td, "shapes-legal.jsonl")); code != ExitOK {
		t.Fatalf("shapes-legal: exit %d\n%s%s", code, out, errs)
	}
	for file, kind := range map[string]string{"stale-write-applied.jsonl": "stale-write-applied", "effect-resurrected.jsonl": "effect-resurrected"} {
		dir := t.TempDir()
		code, out, errs := run("--html", dir, "--json", filepath.Join(dir, "r.json"), "--junit", filepath.Join(dir, "r.xml"), filepath.Join(td, file))
		if code != ExitViolation || !strings.Contains(out, kind) {
			t.Fatalf("%s: exit %d, want %d naming %s\n%s%s", file, code, ExitViolation, kind, out, errs)
		}
		b, err := os.ReadFile(filepath.Join(dir, "r.json"))
		if err != nil || !strings.Contains(string(b), `"kind": "`+kind+`"`) {
			t.Fatalf("%s: json report: %v\n%s", file, err, b)
		}
	}
	// Nothing read after the move: nothing proven, and the report says why.
	f := filepath.Join(t.TempDir(), "h.jsonl")
	line := `{"process":"user","op":"move","call":1,"return":2,"input":{"message":"m9","from":"Inbox","to":"Archive"},"output":{"outcome":"ok"}}`
	if err := os.WriteFile(f, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, out, _ := run(f); !strings.Contains(out, "UNDECIDED message m9 (1 ops): no locate read after an acknowledged move or delete") {
		t.Fatalf("undecided:\n%s", out)
	}
}
