package matchers

import (
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
)

func TestHaveExactViolations(t *testing.T) {
	t.Setenv(ReportDirEnv, t.TempDir())
	h := read(t, "double-charge.jsonl")
	got := kindsOf(checker.Check(h, checker.CheckOptions{}))
	if ok, err := HaveExactViolations(got...).Match(h); !ok || err != nil {
		t.Fatalf("exact %v did not match its own kinds: %v", got, err)
	}
	m := HaveExactViolations(checker.KindDoubleCharge, checker.KindLostEffect)
	if ok, _ := m.Match(h); ok {
		t.Fatal("matched a kind the history does not have")
	}
	if msg := m.FailureMessage(h); !strings.Contains(msg, "but they are [double-charge") || !strings.Contains(msg, "intent=payments:u1:K1") {
		t.Errorf("message should list what was found:\n%s", msg)
	}
	if ok, _ := HaveExactViolations().Match(read(t, "legal.jsonl")); !ok {
		t.Fatal("no kinds should match a legal history")
	}
	if _, err := HaveExactViolations("double-chrage").Match(h); err == nil {
		t.Fatal("want an error for a misspelt kind")
	}
}
