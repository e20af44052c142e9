package checker

import (
	"os"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
)

// A merchant stretch without a balance read is not checked by porcupine, so
// its ops are built only when a violation keeps it: a double credit still
// gets its merchant's picture.
func TestUncheckedStretchIsPictured(t *testing.T) {
	f, err := os.Open("testdata/double-credit.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	all, err := history.ReadJSONL(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var h history.History
	for _, op := range all {
		if op.Op != history.OpBalance {
			h = append(h, op)
		}
	}
	res := Check(h, CheckOptions{InitialBalances: map[string]int64{"m1": 0}})
	if res.OK() {
		t.Fatalf("double credit not found:\n%s", res.Text())
	}
	paths, err := res.WriteHTML(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if strings.Contains(p, "merchant") {
			if b, err := os.ReadFile(p); err != nil || len(b) == 0 {
				t.Fatalf("picture %s: %v, %d bytes", p, err, len(b))
			}
			return
		}
	}
	t.Fatalf("no merchant picture among %v:\n%s", paths, res.Text())
}
