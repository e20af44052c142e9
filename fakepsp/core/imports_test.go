package core

import (
	"go/parser"
	"go/token"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
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
// a dialect imports core but neither the facade nor another dialect; the
// facade names a dialect only in stripeFacing. A dialect that reached into
// another, or a facade that spoke Stripe, would make the second dialect
// costlier than one folder.
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
	t.Run("facade", facadeIsDialectNeutral)
}

// stripeFacing are the facade's files allowed to import a dialect: the
// registry line, and Stripe's names kept in the facade's public face.
var stripeFacing = map[string]bool{"dialects.go": true, "stripe.go": true}

// facadeIsDialectNeutral: outside stripeFacing, package fakepsp imports no
// dialect and no PSP's library, so a second dialect does not have to
// change the facade.
func facadeIsDialectNeutral(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}\n{{range .GoFiles}}{{.}} {{end}}", module+"fakepsp").CombinedOutput()
	if err != nil {
		t.Fatalf("go list fakepsp: %v\n%s", err, out)
	}
	dir, files, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	checked := 0
	for _, name := range strings.Fields(files) {
		if stripeFacing[name] {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			rest, underFakepsp := strings.CutPrefix(path, module+"fakepsp/")
			if underFakepsp && rest != "core" || strings.HasPrefix(path, "github.com/stripe/") {
				t.Errorf("fakepsp/%s imports %s: only %v of the facade may name a dialect", name, path, keys(stripeFacing))
			}
		}
	}
	if checked < 5 {
		t.Fatalf("checked only %d files of package fakepsp in %s: is go list's answer what this test expects?", checked, dir)
	}
}

func keys(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }
