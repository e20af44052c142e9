package docs

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/idemcheck/idemcheck/"

// packageRows reads ARCHITECTURE.md's package table: path -> floor.
func packageRows(t *testing.T) map[string]int {
	t.Helper()
	rows := map[string]int{}
	re := regexp.MustCompile("(?m)^\\| `([a-z0-9/]+)` \\| ([0-9]) \\| .+ \\|$")
	for _, m := range re.FindAllStringSubmatch(read(t, "ARCHITECTURE.md"), -1) {
		if _, dup := rows[m[1]]; dup {
			t.Errorf("ARCHITECTURE.md: package %s has two rows", m[1])
		}
		rows[m[1]], _ = strconv.Atoi(m[2])
	}
	return rows
}

// imports lists every package of the module with the module's packages it
// imports (tests excluded: a test may reach any floor).
func imports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		p := strings.TrimPrefix(f[0], module)
		pkgs[p] = nil
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, module) {
				pkgs[p] = append(pkgs[p], strings.TrimPrefix(imp, module))
			}
		}
	}
	return pkgs
}

// TestEveryPackageHasARow: the package table lists every package of the
// tree once, and nothing else, so a newcomer's map cannot drift.
func TestEveryPackageHasARow(t *testing.T) {
	rows, pkgs := packageRows(t), imports(t)
	for p := range pkgs {
		if _, ok := rows[p]; !ok {
			t.Errorf("package %s has no row in ARCHITECTURE.md's package table", p)
		}
	}
	for p := range rows {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("ARCHITECTURE.md lists %s, which is not a package", p)
		}
	}
}

// TestNoImportRunsUpAFloor: a package imports only its own floor or lower
// ones, and conform's engine never imports a tier.
func TestNoImportRunsUpAFloor(t *testing.T) {
	rows, pkgs := packageRows(t), imports(t)
	for p, imps := range pkgs {
		for _, imp := range imps {
			if rows[imp] > rows[p] {
				t.Errorf("%s (floor %d) imports %s (floor %d)", p, rows[p], imp, rows[imp])
			}
			if strings.HasPrefix(p, "conform") && strings.HasPrefix(imp, "targets/") {
				t.Errorf("%s imports the tier package %s: conform reaches the system under test only through its target", p, imp)
			}
		}
	}
}

// TestREADMEFoldersCoverTheTree: README's folder table has a row for every
// top-level folder that holds a package.
func TestREADMEFoldersCoverTheTree(t *testing.T) {
	readme := read(t, "../README.md")
	i := strings.Index(readme, "## Folders")
	if i < 0 {
		t.Fatal("README.md has no Folders section")
	}
	table := readme[i:]
	if j := strings.Index(table[3:], "\n## "); j >= 0 {
		table = table[:j+3]
	}
	for p := range imports(t) {
		top, _, _ := strings.Cut(p, "/")
		if p == "cmd/idemcheck" {
			top = p
		}
		if !strings.Contains(table, "| `"+top+"/` |") {
			t.Errorf("README.md's Folders table has no row for %s/ (package %s)", top, p)
		}
	}
}
