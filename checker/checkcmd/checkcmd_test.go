package checkcmd

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
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
	if err := xml.Unmarshal(b, &suites); err != nil || len(suites.Suites) != 1 || suites.Suites[0].Failures != 3 || suites.Suites[0].Tests != len(checker.Kinds)+1 {
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

// TestUndecidedIsNotAPass: a timeout that leaves a partition undecided exits
// 3 and every report says which partition, with bounded messages.
func TestUndecidedIsNotAPass(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join("..", "testdata", "legal.jsonl")
	js, ju := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml")
	code, out, errs := run(file, "--timeout", "1ns", "--json", js, "--junit", ju)
	if code != ExitUndecided {
		t.Fatalf("exit %d, want %d\n%s%s", code, ExitUndecided, out, errs)
	}
	if !strings.HasPrefix(out, "idemcheck: UNDECIDED: 0 violation(s)") || !strings.Contains(out, "UNDECIDED intent payments:u1:K1") || !strings.Contains(out, "not a pass") {
		t.Fatalf("text:\n%s", out)
	}
	var doc struct {
		OK        bool   `json:"ok"`
		Verdict   string `json:"verdict"`
		Decided   bool   `json:"decided"`
		Undecided int    `json:"undecided"`
		Unknown   []struct {
			Name string `json:"name"`
		} `json:"unknown"`
	}
	b, _ := os.ReadFile(js)
	if err := json.Unmarshal(b, &doc); err != nil || !doc.OK || doc.Verdict != "UNDECIDED" || doc.Decided || doc.Undecided == 0 || len(doc.Unknown) != doc.Undecided {
		t.Fatalf("json: %v %+v", err, doc)
	}
	var suites struct {
		Suites []struct {
			Name   string `xml:"name,attr"`
			Errors int    `xml:"errors,attr"`
			Time   string `xml:"time,attr"`
			Cases  []struct {
				Name  string `xml:"name,attr"`
				Error *struct {
					Message string `xml:"message,attr"`
					Body    string `xml:",chardata"`
				} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	b, _ = os.ReadFile(ju)
	if err := xml.Unmarshal(b, &suites); err != nil || len(suites.Suites) != 1 {
		t.Fatalf("junit: %v\n%s", err, b)
	}
	s := suites.Suites[0]
	last := s.Cases[len(s.Cases)-1]
	if s.Name != "idemcheck check legal.jsonl" || s.Errors != 1 || s.Time == "" || last.Error == nil || !strings.Contains(last.Error.Body, "intent payments:u1:K1") {
		t.Fatalf("junit: %+v\n%s", s, b)
	}
}

// TestEmptyHistoryIsBadInput: a broken recorder's empty file is no pass.
func TestEmptyHistoryIsBadInput(t *testing.T) {
	for _, content := range []string{"", "\n\n   \n"} {
		f := filepath.Join(t.TempDir(), "empty.jsonl")
		if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, errs := run(f); code != ExitBadInput || !strings.Contains(errs, "empty.jsonl: no operation at all") {
			t.Fatalf("exit %d, stderr %q", code, errs)
		}
	}
}

// TestUnknownFieldWarnsOrFails: a misspelt field is named with file, line
// and field; --strict refuses it.
func TestUnknownFieldWarnsOrFails(t *testing.T) {
	legal, err := os.ReadFile(filepath.Join("..", "testdata", "legal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "typo.jsonl")
	typo := strings.Replace(string(legal), `"input": {"psp_key"`, `"regoin": "r2", "input": {"psp_key"`, 1)
	if typo == string(legal) {
		t.Fatal("no line to misspell")
	}
	if err := os.WriteFile(f, []byte(typo), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(f)
	if !strings.Contains(errs, `typo.jsonl:3: field "regoin": unknown field, ignored`) {
		t.Fatalf("exit %d, stderr %q\n%s", code, errs, out)
	}
	if code, _, errs := run("--strict", f); code != ExitBadInput || !strings.Contains(errs, `typo.jsonl:3: field "regoin": unknown field (--strict)`) {
		t.Fatalf("strict: exit %d, stderr %q", code, errs)
	}
}

func TestGenWritesASeededHistory(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	var out, errb bytes.Buffer
	if code := RunGen([]string{"--ops", "2000", "--seed", "42", "--out", a}, &out, &errb); code != ExitOK || !strings.Contains(out.String(), "seed 42") {
		t.Fatalf("gen: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if code := RunGen([]string{"--ops", "2000", "--seed", "42", "--out", b}, &out, &errb); code != ExitOK {
		t.Fatalf("gen again: exit %d", code)
	}
	x, _ := os.ReadFile(a)
	y, _ := os.ReadFile(b)
	if len(x) == 0 || !bytes.Equal(x, y) {
		t.Fatal("one seed wrote two different files")
	}
	if code, out, errs := run(a); code != ExitOK {
		t.Fatalf("check of a generated history: exit %d\n%s%s", code, out, errs)
	}
	if code := RunGen([]string{"--ops", "10"}, &out, &errb); code != ExitBadInput {
		t.Fatalf("gen without --out: exit %d", code)
	}
}
