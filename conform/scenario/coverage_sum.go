package scenario

import "slices"

// Sum is the coverage of rounds run one after another: a value exercised
// in any round is exercised, counts add up, and a value is missing only
// when no round exercised it. Either may be nil.
func (c *Coverage) Sum(o *Coverage) *Coverage {
	if c == nil {
		return o.clone()
	}
	if o == nil {
		return c.clone()
	}
	out := &Coverage{}
	idx := map[string]int{}
	var names []string
	dims := map[string]*CoverageDim{}
	for _, src := range []*Coverage{c, o} {
		for _, d := range src.Dimensions {
			m := dims[d.Name]
			if m == nil {
				m = &CoverageDim{Name: d.Name, Exercised: map[string]int{}, Excluded: map[string]string{}}
				dims[d.Name], idx[d.Name] = m, len(names)
				names = append(names, d.Name)
			}
			for _, v := range d.Allowed {
				if !slices.Contains(m.Allowed, v) {
					m.Allowed = append(m.Allowed, v)
				}
				m.Exercised[v] += d.Exercised[v]
			}
			for v, why := range d.Excluded {
				m.Excluded[v] = why
			}
		}
	}
	for _, n := range names {
		m := dims[n]
		out.Add(m.Name, m.Allowed, m.Exercised, m.Excluded)
	}
	return out
}

func (c *Coverage) clone() *Coverage {
	if c == nil {
		return nil
	}
	return (&Coverage{}).Sum(c)
}
