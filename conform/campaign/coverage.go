package campaign

import (
	"slices"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// addCoverage sums b into a, dimension by dimension: a value counts as
// allowed when any run allowed it, and is missing when no run exercised it.
func addCoverage(a, b *scenario.Coverage) *scenario.Coverage {
	if b == nil {
		return a
	}
	dims := map[string]*scenario.CoverageDim{}
	var order []string
	for _, c := range []*scenario.Coverage{a, b} {
		if c == nil {
			continue
		}
		for _, d := range c.Dimensions {
			s := dims[d.Name]
			if s == nil {
				s = &scenario.CoverageDim{Name: d.Name, Exercised: map[string]int{}}
				dims[d.Name] = s
				order = append(order, d.Name)
			}
			for _, v := range d.Allowed {
				if !slices.Contains(s.Allowed, v) {
					s.Allowed = append(s.Allowed, v)
				}
			}
			for v, n := range d.Exercised {
				s.Exercised[v] += n
			}
			for v, why := range d.Excluded {
				if s.Excluded == nil {
					s.Excluded = map[string]string{}
				}
				if _, ok := s.Excluded[v]; !ok {
					s.Excluded[v] = why
				}
			}
		}
	}
	out := &scenario.Coverage{}
	for _, name := range order {
		d := dims[name]
		excluded := d.Excluded
		// A value one run allowed is not excluded for the campaign.
		for _, v := range d.Allowed {
			delete(excluded, v)
		}
		if len(excluded) == 0 {
			excluded = nil
		}
		out.Add(d.Name, d.Allowed, d.Exercised, excluded)
	}
	return out
}
