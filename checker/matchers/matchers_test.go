package matchers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/onsi/gomega"
)

func read(t *testing.T, name string) history.History {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := history.ReadJSONL(f)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestMatchersPass(t *testing.T) {
	g := gomega.NewWithT(t)
	legal := read(t, "legal.jsonl")
	g.Expect(legal).To(HaveNoViolations())
	g.Expect(legal).To(HaveOneChargePerIntent())
	g.Expect(legal).NotTo(HaveViolation(checker.KindDoubleCredit))
	g.Expect(read(t, "double-credit.jsonl")).To(HaveViolation(checker.KindDoubleCredit))
	g.Expect(read(t, "double-credit.jsonl")).To(HaveOneChargePerIntent())
	g.Expect(checker.Check(legal, checker.CheckOptions{})).To(HaveNoViolations())

	rec := history.NewRecorder()
	p := rec.Begin("phone-1", history.OpCreate, "payments:u1:K1", history.Input{Fingerprint: "f", Amount: history.Int64(1), Currency: "USD"})
	if err := p.Unknown(); err != nil {
		t.Fatal(err)
	}
	g.Expect(rec).To(HaveNoViolations())
}

func TestMatcherFailureMessages(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(ReportDirEnv, dir)
	h := read(t, "double-charge.jsonl")

	m := HaveNoViolations()
	ok, err := m.Match(h)
	if ok || err != nil {
		t.Fatalf("Match = %v, %v; want false, nil", ok, err)
	}
	msg := m.FailureMessage(h)
	for _, want := range []string{"double-charge", "intent=payments:u1:K1", `"psp_key":"pay_7:R2:1"`, "picture: " + dir} {
		if !strings.Contains(msg, want) {
			t.Errorf("failure message lacks %q:\n%s", want, msg)
		}
	}
	pics, _ := filepath.Glob(filepath.Join(dir, "*.html"))
	if len(pics) != 1 {
		t.Fatalf("pictures = %v, want one", pics)
	}

	m = HaveOneChargePerIntent()
	if ok, _ := m.Match(h); ok {
		t.Fatal("HaveOneChargePerIntent passed a double charge")
	}
	m = HaveViolation(checker.KindLostEffect)
	if ok, _ := m.Match(h); ok {
		t.Fatal("HaveViolation(lost-effect) matched a double charge only")
	}
	if msg := m.FailureMessage(h); !strings.Contains(msg, "has none") || !strings.Contains(msg, "double-charge") {
		t.Errorf("message should say none found and list what was:\n%s", msg)
	}
	if _, err := HaveViolation("double-chrage").Match(h); err == nil {
		t.Fatal("want an error for a misspelt kind")
	}
	if _, err := HaveNoViolations().Match(42); err == nil {
		t.Fatal("want an error for a non-history")
	}
}

// TestHaveNoViolationsNeedsProof: an undecided partition or an empty history
// is not "no violations".
func TestHaveNoViolationsNeedsProof(t *testing.T) {
	t.Setenv(ReportDirEnv, t.TempDir())
	legal := read(t, "legal.jsonl")
	m := HaveNoViolations(checker.CheckOptions{Timeout: 1})
	ok, err := m.Match(legal)
	if err != nil || ok {
		t.Fatalf("undecided history matched: %v %v", ok, err)
	}
	if msg := m.FailureMessage(legal); !strings.Contains(msg, "partition(s) undecided") || !strings.Contains(msg, "UNDECIDED intent payments:u1:K1") {
		t.Fatalf("message:\n%s", msg)
	}
	m = HaveNoViolations()
	if ok, err := m.Match(history.History{}); err != nil || ok {
		t.Fatalf("empty history matched: %v %v", ok, err)
	}
	if msg := m.FailureMessage(history.History{}); !strings.Contains(msg, "no operation") {
		t.Fatalf("message:\n%s", msg)
	}
}
