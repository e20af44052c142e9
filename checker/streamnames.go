package checker

import "math/bits"

// nameTable numbers the names of a file's ops (their 64-bit hashes,
// streamkeys.go) for the first pass: open addressing, probed linearly. The
// keys are hashes already, so their top bits index the table as they are,
// and a probe is mostly one cache line. Go's map hashed them again and
// probed groups: at 10M ops (10M names) looking them up was most of the
// joining, the first pass's longest stage.
type nameTable struct {
	slots []nameSlot
	shift uint // 64 - log2(len(slots))
	used  int
	zero  uint32 // the number of the name whose hash is 0, plus 1 (0: none yet)
}

type nameSlot struct {
	key uint64 // 0: empty
	id  uint32
}

func newNameTable() *nameTable {
	t := &nameTable{}
	t.resize(1 << 16)
	return t
}

// number returns key's number and true, or, for a key not met before, gives
// it next and returns next and false.
func (t *nameTable) number(key uint64, next uint32) (uint32, bool) {
	if key == 0 {
		if t.zero != 0 {
			return t.zero - 1, true
		}
		t.zero = next + 1
		return next, false
	}
	if 4*(t.used+1) > 3*len(t.slots) {
		t.resize(2 * len(t.slots))
	}
	mask := len(t.slots) - 1
	for i := int(key >> t.shift); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.key == key {
			return s.id, true
		}
		if s.key == 0 {
			s.key, s.id = key, next
			t.used++
			return next, false
		}
	}
}

func (t *nameTable) resize(size int) {
	old := t.slots
	t.slots = make([]nameSlot, size)
	t.shift = uint(64 - bits.TrailingZeros(uint(size)))
	mask := size - 1
	for _, s := range old {
		if s.key == 0 {
			continue
		}
		i := int(s.key >> t.shift)
		for t.slots[i].key != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}
