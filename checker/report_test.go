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
	// A fault aimed at no intent is drawn where it overlaps the ops: on
	// the intents (ops from 10), not on the merchant stretch (credits from 60).
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		merchant := strings.HasPrefix(filepath.Base(p), "merchant")
		if bytes.Contains(b, []byte("lose-psp-reply")) == merchant {
			t.Errorf("%s: fault window drawn = %v, want %v", filepath.Base(p), !merchant, merchant)
		}
		// Rows are named by process, not numbered.
		if !bytes.Contains(b, []byte("var idemcheckRows = [")) || !bytes.Contains(b, []byte("idemcheckRows[i]")) {
			t.Errorf("%s: rows are not named by process", filepath.Base(p))
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "intent_payments_u1_K1.html"))
	if !bytes.Contains(b, []byte("double-charge")) {
		t.Error("the double charge's picture does not name it")
	}
	for _, want := range []string{`var idemcheckRows = ["phone-1","psp","psp-2"]`, "charge 3000 key pay_7:charge", "charge 3000 key pay_7:R2:1"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("the double charge's picture lacks %q", want)
		}
	}
}

// A fault aimed at one intent is drawn on that intent's picture only.
func TestFaultsOfOneIntent(t *testing.T) {
	h := readTestdata(t, "multi.jsonl")
	fs := []FaultWindow{{Name: "aimed-at-u5", Intent: "payments:u5:K1", Start: 15, End: 40}}
	dir := t.TempDir()
	for _, in := range []string{"payments:u1:K1", "payments:u5:K1"} {
		p := filepath.Join(dir, fileName(in)+".html")
		if err := Picture(h, in, fs, []Note{{Kind: "double-charge", Message: "two charges", Start: 20, End: 110}}, "", p); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		if got := bytes.Contains(b, []byte("aimed-at-u5")); got != (in == "payments:u5:K1") {
			t.Errorf("%s: fault aimed at u5 drawn = %v", in, got)
		}
		if !bytes.Contains(b, []byte("two charges")) {
			t.Errorf("%s: the note is not drawn", in)
		}
	}
	if err := Picture(h, "payments:nobody:K", nil, nil, "", filepath.Join(dir, "x.html")); err == nil {
		t.Error("a picture of an intent with no op was drawn")
	}
}

// A porcupine whose page no longer has the row labels is an error.
func TestNameRowsRefusesAChangedPage(t *testing.T) {
	if _, err := nameRows([]byte("<script>render(data)</script>"), []string{"a"}); err == nil {
		t.Error("nameRows accepted a page without porcupine's row labels")
	}
	out, err := nameRows([]byte("<script>"+rowLabels[0].from+"\n"+rowLabels[1].from+"</script>"), []string{"</script>"})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(out, []byte("</script>")) != 1 {
		t.Errorf("a process name ended the script: %s", out)
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
