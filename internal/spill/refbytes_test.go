package spill

import "testing"

func TestRefRoundTrips(t *testing.T) {
	for _, r := range []Ref{{}, {off: 1, n: 2}, {off: 1 << 40, n: 1<<31 - 1}} {
		b := AppendRef([]byte{7}, r)
		got, n := ReadRef(b[1:])
		if got != r || n != len(b)-1 {
			t.Fatalf("ReadRef(AppendRef(%v)) = %v, %d; want %v, %d", r, got, n, r, len(b)-1)
		}
	}
	if _, n := ReadRef(nil); n != 0 {
		t.Fatalf("ReadRef(nil) took %d bytes, want 0", n)
	}
}
