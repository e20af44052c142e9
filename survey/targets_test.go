package survey

import "testing"

// allTargets is every survey target of this checkout, for the tests that
// go through them all.
func allTargets(t *testing.T) []About {
	t.Helper()
	all, err := Targets(".")
	if err != nil {
		t.Fatal(err)
	}
	return all
}
