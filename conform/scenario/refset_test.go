package scenario

import "testing"

// TestRefSet: members are found whole (has) and inside a text (in), ""
// is never one, a set once shared does not change when another is made
// from it, and repeats are kept once.
func TestRefSet(t *testing.T) {
	var empty refSet
	a := empty.with([]string{"ch_1", "", "key-22", "ch_1"})
	b := a.with([]string{"ch_333"})
	if a.size() != 2 || b.size() != 3 {
		t.Fatalf("sizes %d and %d, want 2 and 3 (\"\" is no member, a repeat is one)", a.size(), b.size())
	}
	for _, c := range []struct {
		set    refSet
		x      string
		has    bool
		inText string
		in     bool
	}{
		{a, "ch_1", true, `{"latest_charge":"ch_1"}`, true},
		{a, "key-22", true, "under key-22 it went", true},
		{a, "ch_333", false, `{"latest_charge":"ch_333"}`, false},
		{a, "ch_10", false, `{"latest_charge":"ch_10"}`, true}, // ch_10 holds ch_1
		{b, "ch_333", true, "ch_33", false},
		{a, "", false, "", false},
		{empty, "ch_1", false, "ch_1", false},
	} {
		if got := c.set.has(c.x); got != c.has {
			t.Errorf("has(%q) = %v, want %v", c.x, got, c.has)
		}
		if got := c.set.in(c.inText); got != c.in {
			t.Errorf("in(%q) = %v, want %v", c.inText, got, c.in)
		}
	}
}
