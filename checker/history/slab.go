package history

// slab hands out the small values an op points to from shared blocks: a
// million ops would otherwise be four million tiny allocations.
type slab struct {
	ints  []int64
	nums  []int
	bools []bool
	outs  []Output
}

const slabSize = 4096

func (s *slab) int64(v int64) *int64 {
	if len(s.ints) == 0 {
		s.ints = make([]int64, slabSize)
	}
	p := &s.ints[0]
	s.ints = s.ints[1:]
	*p = v
	return p
}

func (s *slab) int(v int) *int {
	if len(s.nums) == 0 {
		s.nums = make([]int, slabSize)
	}
	p := &s.nums[0]
	s.nums = s.nums[1:]
	*p = v
	return p
}

func (s *slab) bool(v bool) *bool {
	if len(s.bools) == 0 {
		s.bools = make([]bool, slabSize)
	}
	p := &s.bools[0]
	s.bools = s.bools[1:]
	*p = v
	return p
}

func (s *slab) output(v *Output) *Output {
	if len(s.outs) == 0 {
		s.outs = make([]Output, slabSize)
	}
	p := &s.outs[0]
	s.outs = s.outs[1:]
	*p = *v
	return p
}
