package scenario

import (
	"slices"
	"testing"
)

func TestCoverageSumOfRounds(t *testing.T) {
	a, b := &Coverage{}, &Coverage{}
	a.Add("fault", []string{"kill", "lost-reply"}, map[string]int{"kill": 2}, map[string]string{"pause": "no pause command"})
	b.Add("fault", []string{"kill", "lost-reply"}, map[string]int{"kill": 1, "lost-reply": 3}, nil)
	b.Add("shape", []string{"late-retry"}, map[string]int{}, nil)
	s := a.Sum(b)
	if s.Covered != 2 || s.Allowed != 3 || len(s.Dimensions) != 2 {
		t.Fatalf("sum %+v: want 2 of 3 cells over 2 dimensions", s)
	}
	f := s.Dimensions[0]
	if f.Exercised["kill"] != 3 || f.Exercised["lost-reply"] != 3 || len(f.Missing) != 0 || f.Excluded["pause"] == "" {
		t.Fatalf("fault dimension %+v", f)
	}
	if !slices.Equal(s.Dimensions[1].Missing, []string{"late-retry"}) {
		t.Fatalf("shape dimension %+v: late-retry missing in every round", s.Dimensions[1])
	}
	var none *Coverage
	if got := none.Sum(a); got.Covered != 1 || got == a {
		t.Fatalf("nil + a = %+v, want a copy of a", got)
	}
}
