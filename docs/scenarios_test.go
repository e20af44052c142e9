package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/checks"
	"github.com/idemcheck/idemcheck/targets/mutant"
)

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// anchors are the explicit <a id="..."> of a document: the targets that
// "SCENARIOS.md X" in a report resolves to.
func anchors(doc string) map[string]bool {
	out := map[string]bool{}
	for _, m := range regexp.MustCompile(`<a id="([^"]+)"></a>`).FindAllStringSubmatch(doc, -1) {
		out[m[1]] = true
	}
	return out
}

// goFiles returns the text of every .go file under dir (tests included when
// tests is set).
func goFiles(t *testing.T, dir string, tests bool) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || (!tests && strings.HasSuffix(p, "_test.go")) {
			return nil
		}
		out[p] = read(t, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEveryLabelHasASection: a Ginkgo label used in suites/ names a section
// of SCENARIOS.md, so `--label-filter` and the catalogue agree.
func TestEveryLabelHasASection(t *testing.T) {
	as := anchors(read(t, "SCENARIOS.md"))
	label := regexp.MustCompile(`Label\(([^)]*)\)`)
	str := regexp.MustCompile(`"([^"]+)"`)
	n := 0
	for p, src := range goFiles(t, filepath.Join("..", "suites"), true) {
		for _, m := range label.FindAllStringSubmatch(src, -1) {
			for _, s := range str.FindAllStringSubmatch(m[1], -1) {
				n++
				if !as[s[1]] {
					t.Errorf("%s: Label(%q) has no section (<a id=%q>) in docs/SCENARIOS.md", p, s[1], s[1])
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no Label found under suites/: the walk is wrong")
	}
	for _, id := range strings.Fields("A1 A2 A3 A4 A5 A6 A7 B1 B2 B3 B4 B5 B6 C1 C2 C3 D1 D2 D3 D4 D5 E1 E2 E3 F1 F2 F3 F4 G1 G2 H1") {
		if !as[id] {
			t.Errorf("scenario %s has no section in docs/SCENARIOS.md", id)
		}
	}
}

// TestEveryMutantIsNamed: every switch of the catalogue is named in
// SCENARIOS.md, in the section of each scenario the catalogue gives it.
func TestEveryMutantIsNamed(t *testing.T) {
	doc := read(t, "SCENARIOS.md")
	for _, e := range mutant.Catalogue {
		if !strings.Contains(doc, "`"+string(e.Switch)+"`") {
			t.Errorf("mutant %q is not named in docs/SCENARIOS.md", e.Switch)
		}
		for _, id := range e.Scenarios {
			if sec := section(doc, id); !strings.Contains(sec, "`"+string(e.Switch)+"`") {
				t.Errorf("mutant %q is not named in the section of %s, which the catalogue gives it", e.Switch, id)
			}
		}
	}
}

// section is the text of a scenario's section: from its anchor to the next.
func section(doc, id string) string {
	i := strings.Index(doc, `<a id="`+id+`">`)
	if i < 0 {
		return ""
	}
	rest := doc[i+1:]
	if j := strings.Index(rest, `<a id="`); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// TestEveryRuleResolves: each "SCENARIOS.md X" a report of `idemcheck run`
// can print resolves to an anchor: the literal ones in conform/, and the
// ones built from a check's ID (judge.go), so every check ID of the run.
func TestEveryRuleResolves(t *testing.T) {
	as := anchors(read(t, "SCENARIOS.md"))
	ref := regexp.MustCompile(`SCENARIOS\.md ([A-Z][0-9]+)`)
	n := 0
	for p, src := range goFiles(t, filepath.Join("..", "conform"), false) {
		for _, m := range ref.FindAllStringSubmatch(src, -1) {
			n++
			if !as[m[1]] {
				t.Errorf("%s: rule %q has no section in docs/SCENARIOS.md", p, m[0])
			}
		}
	}
	if n == 0 {
		t.Fatal("no SCENARIOS.md rule found in conform/: the walk is wrong")
	}
	for _, c := range append(checks.All(), checks.ChaosCheck(0, nil)) {
		for _, a := range []string{c.ID, "run-" + c.ID} {
			if !as[a] {
				t.Errorf("check %s: no anchor %q in docs/SCENARIOS.md", c.ID, a)
			}
		}
	}
}
