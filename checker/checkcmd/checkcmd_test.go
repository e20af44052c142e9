package checkcmd

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func run(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestExitCodes(t *testing.T) {
	td := filepath.Join("..", "testdata")
	if code, out, errs := run(filepath.Join(td, "legal.jsonl")); code != ExitOK {
		t.Fatalf("legal: exit %d\n%s%s", code, out, errs)
	}
	if code, out, _ := run(filepath.Join(td, "multi.jsonl")); code != ExitViolation || !strings.Contains(out, "double-charge") {
		t.Fatalf("multi: exit %d\n%s", code, out)
	}
	if code, _, errs := run(filepath.Join(td, "missing.jsonl")); code != ExitBadInput || !strings.Contains(errs, "missing.jsonl") {
		t.Fatalf("missing file: exit %d, %s", code, errs)
	}
	bad := filepath.Join(t.TempDir(), "history.jsonl")
	line := `{"process":"r","op":"balance","call":1,"return":null,"input":{"merchant":"m"}}`
	if err := os.WriteFile(bad, []byte(line+"\n"+strings.Repeat(line+"\n", 10)+`{"process":"r","op":"balance","return":null,"input":{"merchant":"m"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(bad)
	if code != ExitBadInput || !strings.Contains(errs, `history.jsonl:12: field "call": missing`) {
		t.Fatalf("bad line: exit %d, stderr %q", code, errs)
	}
	if code, _, _ := run(); code != ExitBadInput {
		t.Fatalf("no file: exit %d", code)
	}
	if code, _, _ := run("a.jsonl", "b.jsonl"); code != ExitBadInput {
		t.Fatalf("two files: exit %d", code)
	}
	if code, _, _ := run("--bogus", filepath.Join(td, "legal.jsonl")); code != ExitBadInput {
		t.Fatalf("bad flag: exit %d", code)
	}
}

func TestReportsFlagsEitherSide(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join("..", "testdata", "multi.jsonl")
	html, js, ju := filepath.Join(dir, "html"), filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml")
	code, out, errs := run("--html", html, file, "--json", js, "--junit", ju)
	if code != ExitViolation {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	pics, _ := filepath.Glob(filepath.Join(html, "*.html"))
	if len(pics) < 3 || !strings.Contains(out, "picture: ") {
		t.Fatalf("pictures %v\n%s", pics, out)
	}
	var doc struct {
		OK         bool `json:"ok"`
		Violations []struct {
			Kind string `json:"kind"`
			Ops  []any  `json:"ops"`
		} `json:"violations"`
	}
	b, _ := os.ReadFile(js)
	if err := json.Unmarshal(b, &doc); err != nil || doc.OK || len(doc.Violations) != 3 {
		t.Fatalf("json: %v %+v", err, doc)
	}
	var suites struct {
		Suites []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
		} `xml:"testsuite"`
	}
	b, _ = os.ReadFile(ju)
	if err := xml.Unmarshal(b, &suites); err != nil || len(suites.Suites) != 1 || suites.Suites[0].Failures != 3 || suites.Suites[0].Tests != 10 {
		t.Fatalf("junit: %v %+v\n%s", err, suites, b)
	}
}

func TestInitialBalanceFlag(t *testing.T) {
	file := filepath.Join("..", "testdata", "legal.jsonl")
	if code, out, _ := run(file, "--initial-balance", "m1=12000"); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, out)
	}
	// With a wrong base the first read is already inconsistent.
	if code, out, _ := run(file, "--initial-balance", "m1=11000"); code != ExitViolation {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if code, _, _ := run(file, "--initial-balance", "m1"); code != ExitBadInput {
		t.Fatalf("malformed flag: exit %d", code)
	}
}
