package scenario

import (
	"hash/maphash"
	"slices"
)

// refSet is a set of strings kept as their 64-bit hashes, sorted: 8 bytes
// a member, whatever the strings' length. Two strings sharing a hash make
// a false member; its users only ever pay for one with work (a whole
// attribution instead of a round's), never with a wrong answer.
type refSet struct {
	seed maphash.Seed
	hs   []uint64
	// lens are the members' lengths, for in.
	lens []int
}

// with is s and the members xs ("" is never one), in a set of its own: a
// refSet once shared is never changed, so a reader holding one needs no
// lock.
func (s refSet) with(xs []string) refSet {
	if len(xs) == 0 {
		return s
	}
	if s.hs == nil {
		s.seed = maphash.MakeSeed()
	}
	// Sized once: a soak keeps the set for the whole run.
	hs := make([]uint64, len(s.hs), len(s.hs)+len(xs))
	copy(hs, s.hs)
	lens := slices.Clone(s.lens)
	for _, x := range xs {
		if x == "" {
			continue
		}
		hs = append(hs, maphash.String(s.seed, x))
		if !slices.Contains(lens, len(x)) {
			lens = append(lens, len(x))
		}
	}
	slices.Sort(hs)
	if hs = slices.Compact(hs); cap(hs)-len(hs) > len(hs)/8 {
		hs = slices.Clone(hs) // many repeats: not their room
	}
	s.hs, s.lens = hs, lens
	return s
}

// has says whether x is a member.
func (s refSet) has(x string) bool {
	if x == "" || len(s.hs) == 0 {
		return false
	}
	_, ok := slices.BinarySearch(s.hs, maphash.String(s.seed, x))
	return ok
}

// in says whether some member occurs in text.
func (s refSet) in(text string) bool {
	if len(s.hs) == 0 {
		return false
	}
	for _, l := range s.lens {
		for i := 0; i+l <= len(text); i++ {
			if _, ok := slices.BinarySearch(s.hs, maphash.String(s.seed, text[i:i+l])); ok {
				return true
			}
		}
	}
	return false
}

// size is its members' count, for the soak's figures.
func (s refSet) size() int { return len(s.hs) }
