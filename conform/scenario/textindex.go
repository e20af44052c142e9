package scenario

import "slices"

// textIndex finds which of a set of ids occur as substrings of a text,
// without searching the text once per id: the judge asks this for every
// charge and exchange of a run, and per-id searching made its cost grow
// with the run's size squared. It assumes nothing of the ids' format: any
// length, one id inside another.
type textIndex struct {
	// empty is the rank of the empty id (it occurs in every text), or -1.
	empty int
	// one holds the rank+1 of each one-byte id (0: none).
	one [256]int
	// two marks the first two bytes of every longer id: most positions
	// of a text start no id and cost one bit test.
	two   []uint64
	lens  []int
	byLen map[int]map[string]int
}

// newTextIndex indexes ids; an id's rank is its first position in ids.
func newTextIndex(ids []string) *textIndex {
	x := &textIndex{empty: -1, byLen: map[int]map[string]int{}}
	for i, id := range ids {
		switch len(id) {
		case 0:
			if x.empty < 0 {
				x.empty = i
			}
		case 1:
			if x.one[id[0]] == 0 {
				x.one[id[0]] = i + 1
			}
		default:
			if x.two == nil {
				x.two = make([]uint64, 1<<16/64)
			}
			p := uint(id[0])<<8 | uint(id[1])
			x.two[p/64] |= 1 << (p % 64)
			m := x.byLen[len(id)]
			if m == nil {
				m = map[string]int{}
				x.byLen[len(id)] = m
				x.lens = append(x.lens, len(id))
			}
			if _, ok := m[id]; !ok {
				m[id] = i
			}
		}
	}
	slices.Sort(x.lens)
	return x
}

// each calls fn with the rank of every id occurrence in s (an id found
// at several positions is reported at each).
func (x *textIndex) each(s string, fn func(rank int)) {
	if x.empty >= 0 {
		fn(x.empty)
	}
	for i := 0; i < len(s); i++ {
		if r := x.one[s[i]]; r > 0 {
			fn(r - 1)
		}
		if x.two == nil || i+1 >= len(s) {
			continue
		}
		p := uint(s[i])<<8 | uint(s[i+1])
		if x.two[p/64]&(1<<(p%64)) == 0 {
			continue
		}
		for _, l := range x.lens {
			if i+l > len(s) {
				break
			}
			if r, ok := x.byLen[l][s[i:i+l]]; ok {
				fn(r)
			}
		}
	}
}

// first returns the lowest rank of the ids occurring in s, or -1.
func (x *textIndex) first(s string) int {
	best := -1
	x.each(s, func(r int) {
		if best < 0 || r < best {
			best = r
		}
	})
	return best
}
