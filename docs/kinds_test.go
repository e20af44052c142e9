package docs

import (
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
)

// TestEveryKindIsDocumented: the one list of kinds (checker/kinds.go) and
// the documents agree: a history kind has its checked example in
// HISTORY.md, a kind only `run` names has its row in SCENARIOS.md.
func TestEveryKindIsDocumented(t *testing.T) {
	history, scenarios := read(t, "HISTORY.md"), anchors(read(t, "SCENARIOS.md"))
	for _, k := range checker.Kinds {
		if !strings.Contains(history, "`"+k+"`") {
			t.Errorf("history kind %s: not in HISTORY.md", k)
		}
	}
	for _, k := range checker.RunKinds {
		if !scenarios["kind-"+k] {
			t.Errorf("run kind %s: no <a id=\"kind-%s\"> row in SCENARIOS.md's run kinds", k, k)
		}
	}
}
