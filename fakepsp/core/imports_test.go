package core

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/idemcheck/idemcheck/"

// deps lists pkg and everything it imports, test files left out.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	return strings.Fields(string(out))
}

// dialects are the folders under fakepsp/ other than core.
func dialects(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, p := range deps(t, module+"fakepsp") {
		rest, under := strings.CutPrefix(p, module+"fakepsp/")
		if under && rest != "core" && !strings.Contains(rest, "/") {
			out = append(out, p)
		}
	}
	return out
}

// TestDependenciesPointOneWay: core imports no dialect and not the facade;
// a dialect imports core but neither the facade nor another dialect. A
// dialect that reached into another would make the second one costlier
// than one folder.
func TestDependenciesPointOneWay(t *testing.T) {
	ds := dialects(t)
	if len(ds) == 0 {
		t.Fatal("fakepsp imports no dialect: the registry is empty")
	}
	for _, p := range deps(t, module+"fakepsp/core") {
		if p == module+"fakepsp" || strings.HasPrefix(p, module+"fakepsp/") && p != module+"fakepsp/core" {
			t.Errorf("fakepsp/core imports %s: the core must not know a dialect or the facade", p)
		}
	}
	for _, d := range ds {
		hasCore := false
		for _, p := range deps(t, d) {
			switch {
			case p == module+"fakepsp/core":
				hasCore = true
			case p == d:
			case p == module+"fakepsp" || strings.HasPrefix(p, module+"fakepsp/"):
				t.Errorf("%s imports %s: a dialect imports only core of fakepsp", d, p)
			}
		}
		if !hasCore {
			t.Errorf("%s does not import fakepsp/core: it cannot be a dialect", d)
		}
	}
}
