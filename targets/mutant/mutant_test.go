package mutant

import "testing"

func TestCatalogueIsComplete(t *testing.T) {
	seen := map[Switch]bool{}
	for _, e := range Catalogue {
		if seen[e.Switch] {
			t.Errorf("%s listed twice", e.Switch)
		}
		seen[e.Switch] = true
		if e.Tier == "" || e.Guard == "" || len(e.Scenarios) == 0 || e.CaughtAs == "" {
			t.Errorf("%s: incomplete entry %+v", e.Switch, e)
		}
	}
	covered := map[string]bool{}
	for _, e := range Catalogue {
		for _, s := range e.Scenarios {
			covered[s] = true
		}
	}
	for _, id := range []string{"A1", "A2", "A3", "A4", "A5", "A6", "A7", "B1", "B2", "B3", "B4", "B5", "B6", "C1", "C2", "C3", "D1", "D2", "D3", "D4", "E1", "E2", "E3", "F1", "F2", "F3", "F4", "G1", "G2", "H1"} {
		if !covered[id] {
			t.Errorf("no mutant for scenario %s", id)
		}
	}
}

func TestParse(t *testing.T) {
	m, err := Parse(" no-deadline, resolve-read-only ,")
	if err != nil || !m.On(NoDeadline) || !m.On(ResolveReadOnly) || len(m) != 2 {
		t.Fatalf("Parse = %v, %v", m, err)
	}
	if m.String() != "no-deadline,resolve-read-only" {
		t.Fatalf("String = %q", m.String())
	}
	if _, err := Parse("no-such-guard"); err == nil {
		t.Fatal("unknown switch accepted")
	}
	if got := Of("resolver", Set{ResolverFreshPSPKey: true, NoDeadline: true}); len(got) != 1 || !got.On(ResolverFreshPSPKey) {
		t.Fatalf("Of = %v", got)
	}
	if got := Without("resolver", Set{ResolverFreshPSPKey: true, NoDeadline: true}); len(got) != 1 || !got.On(NoDeadline) {
		t.Fatalf("Without = %v", got)
	}
}
