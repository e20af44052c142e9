package report

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

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
	for _, v := range []any{Report{}, scenario.Result{}, scenario.Finding{}, driver.Attempt{}} {
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
