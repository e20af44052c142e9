package bench

import (
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
)

// TestCheckedOpsReadsTheCheckersSummary: the 10M figures divide by the op
// count of idemcheck check's own summary line, so the pattern must match
// the line the checker writes.
func TestCheckedOpsReadsTheCheckersSummary(t *testing.T) {
	var b strings.Builder
	if err := (&checker.Result{Ops: 10413471}).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	m := checkedOps.FindStringSubmatch(b.String())
	if m == nil || m[1] != "10413471" {
		t.Fatalf("op count from %q: %v, want 10413471", b.String(), m)
	}
}
