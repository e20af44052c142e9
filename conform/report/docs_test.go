package report

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/checks"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// TestReportsDocNamesEveryField: every JSON field of the run report (the
// report, a result, a finding, an attempt) is named in docs/REPORTS.md, so a
// field added to the shape is documented with it.
func TestReportsDocNamesEveryField(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "REPORTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	names := []string{"schema_version"}
	for _, v := range []any{Report{}, scenario.Result{}, scenario.Finding{}, driver.Attempt{}, scenario.Wait{}} {
		rt := reflect.TypeOf(v)
		for i := 0; i < rt.NumField(); i++ {
			if n := strings.Split(rt.Field(i).Tag.Get("json"), ",")[0]; n != "" && n != "-" {
				names = append(names, n)
			}
		}
	}
	for _, n := range names {
		if !strings.Contains(doc, "`"+n+"`") {
			t.Errorf("JSON field %q of the run report is not in docs/REPORTS.md", n)
		}
	}
}

// TestEveryRuleLinksToItsSection: the rule of every check the run can
// report (and the recount's) links only to anchors docs/SCENARIOS.md has,
// and at least to the check's own row.
func TestEveryRuleLinksToItsSection(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "SCENARIOS.md"))
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`<a id="([^"]+)"></a>`).FindAllStringSubmatch(string(b), -1) {
		anchors[m[1]] = true
	}
	href := regexp.MustCompile(`href="([^"]+)"`)
	checks := append(checks.All(), checks.ChaosCheck(0, nil), &scenario.Check{ID: "recount", Rule: scenario.RuleLate})
	for _, c := range checks {
		html := string(ruleHTML(c.ID, c.Rule))
		links := href.FindAllStringSubmatch(html, -1)
		if len(links) == 0 || !strings.Contains(html, `href="`+CheckDoc(c.ID)+`"`) && !strings.Contains(c.Rule, "SCENARIOS.md") {
			t.Errorf("%s: rule %q does not link to its section: %s", c.ID, c.Rule, html)
		}
		for _, l := range links {
			doc, anchor, ok := strings.Cut(strings.TrimPrefix(l[1], DocsURL), "#")
			if !ok || doc != "SCENARIOS.md" || !anchors[anchor] {
				t.Errorf("%s: rule %q links to %s, which is no anchor of docs/SCENARIOS.md", c.ID, c.Rule, l[1])
			}
		}
	}
}
