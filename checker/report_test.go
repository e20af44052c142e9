package checker

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker/junit"
)

func TestWriteHTMLAnnotatesFaults(t *testing.T) {
	h := readTestdata(t, "multi.jsonl")
	res := Check(h, CheckOptions{Faults: []FaultWindow{{Name: "lose-psp-reply", Start: 15, End: 40}}})
	dir := t.TempDir()
	paths, err := res.WriteHTML(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The double charge's illegal intent, the double credit's merchant
	// stretch and the mismatch's intent.
	if len(paths) != 3 {
		t.Fatalf("pictures = %v, want 3", paths)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte("lose-psp-reply")) {
			t.Errorf("%s lacks the fault window", filepath.Base(p))
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "intent_payments_u1_K1.html"))
	if !bytes.Contains(b, []byte("double-charge")) {
		t.Error("the double charge's picture does not name it")
	}
}

func TestWriteJUnit(t *testing.T) {
	res := Check(readTestdata(t, "multi.jsonl"), CheckOptions{})
	var buf bytes.Buffer
	if err := res.WriteJUnit(&buf, ""); err != nil {
		t.Fatal(err)
	}
	var doc junit.Suites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Suites[0]
	if s.Tests != len(Kinds)+1 || s.Failures != 3 || s.Skipped != 0 {
		t.Fatalf("suite: tests %d failures %d skipped %d", s.Tests, s.Failures, s.Skipped)
	}
	for _, c := range s.Cases {
		if c.Failure != nil && !strings.Contains(c.Failure.Body, `"op":"`) {
			t.Errorf("%s: failure lists no ops", c.Name)
		}
	}
}

// TestJUnitHasACaseForEveryKind: a history whose only violation is of any
// kind fails that kind's JUnit case, so the JUnit file never shows green
// where the exit code is 1.
func TestJUnitHasACaseForEveryKind(t *testing.T) {
	for _, k := range Kinds {
		res := &Result{Violations: []Violation{{Kind: k, Intent: "payments:u1:K1", Message: "m"}}}
		var buf bytes.Buffer
		if err := res.WriteJUnit(&buf, "x"); err != nil {
			t.Fatal(err)
		}
		var doc junit.Suites
		if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Suites[0].Failures != 1 {
			t.Errorf("%s: %d failing cases, want 1", k, doc.Suites[0].Failures)
		}
	}
}
