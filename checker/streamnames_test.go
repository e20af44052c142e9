package checker

import "testing"

// TestNameTable: a name keeps the number it was first given, through the
// table's growth, the hash 0 included, and keys that share their top bits
// (one slot to probe from) are told apart.
func TestNameTable(t *testing.T) {
	tab := newNameTable()
	const n = 300_000 // grows the table from 64k slots several times
	key := func(i int) uint64 {
		if i == 7 {
			return 0
		}
		if i%1000 == 0 {
			return uint64(i) + 1 // top bits 0: all probe from slot 0
		}
		return uint64(i) * 0x9e3779b97f4a7c15
	}
	for i := range n {
		if id, ok := tab.number(key(i), uint32(i)); ok || id != uint32(i) {
			t.Fatalf("new name %d: got %d, %v", i, id, ok)
		}
		if id, ok := tab.number(key(i/2), uint32(n+i)); !ok || id != uint32(i/2) {
			t.Fatalf("name %d met again after %d: got %d, %v", i/2, i, id, ok)
		}
	}
	for i := range n {
		if id, ok := tab.number(key(i), 0); !ok || id != uint32(i) {
			t.Fatalf("name %d at the end: got %d, %v", i, id, ok)
		}
	}
}
