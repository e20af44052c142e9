package scenario

import (
	"slices"
	"strings"
	"testing"
)

func TestCoverageCountsCellsAndNamesGaps(t *testing.T) {
	var c Coverage
	c.Add("fault", []string{"a", "b", "c"}, map[string]int{"a": 2, "c": 1, "z": 9}, map[string]string{"d": "no webhook"})
	c.Add("key", []string{"own key"}, map[string]int{"own key": 5}, nil)
	if c.Covered != 3 || c.Allowed != 4 {
		t.Fatalf("covered %d of %d, want 3 of 4", c.Covered, c.Allowed)
	}
	if f, ok := c.Figure(); !ok || f != 75 {
		t.Fatalf("figure %v %v, want 75", f, ok)
	}
	if d := c.Dimensions[0]; !slices.Equal(d.Missing, []string{"b"}) || d.Exercised["z"] != 0 {
		t.Fatalf("dimension %+v: want b missing and z (not allowed) left out", d)
	}
	lines := strings.Join(c.Lines(), "\n")
	for _, want := range []string{"coverage of fault: 2 of 3; not exercised: b; d not allowed: no webhook", "coverage of key: 1 of 1", "coverage: 75% (3 of 4 cells)"} {
		if !strings.Contains(lines, want) {
			t.Errorf("lines lack %q:\n%s", want, lines)
		}
	}
	if _, ok := (&Coverage{}).Figure(); ok {
		t.Error("an empty coverage gave a figure")
	}
}
