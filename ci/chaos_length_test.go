package ci

import (
	"regexp"
	"strings"
	"testing"
)

// testChaos is how long the examples' chaos steps run here. The examples
// give a user's pipeline 60 s; what these tests prove (each step's exit
// code, reports and artifacts) does not depend on the length, and the
// chaos mode's own power is measured by its tests and the kill matrix.
const testChaos = "15s"

var chaosDuration = regexp.MustCompile(`--duration [0-9]+[a-z]+`)

// shortChaos shortens the --duration of a chaos command line of an
// example; a chaos line without one fails, so a changed example is noticed.
func shortChaos(t *testing.T, line string) string {
	t.Helper()
	if !strings.Contains(line, "--chaos") {
		return line
	}
	if !chaosDuration.MatchString(line) {
		t.Errorf("the example's chaos line has no --duration to shorten: %s", line)
		return line
	}
	return chaosDuration.ReplaceAllString(line, "--duration "+testChaos)
}
