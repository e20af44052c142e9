package spill

import "testing"

// TestPackedRoundTrip: every Ref that packs comes back equal, at the edges
// too, and one that cannot fit says so rather than packing another.
func TestPackedRoundTrip(t *testing.T) {
	for _, r := range []Ref{{}, {off: 0, n: 1}, {off: 12345, n: 678}, {off: 1<<40 - 1, n: 1<<24 - 1}} {
		p, ok := r.Pack()
		if !ok || p.Ref() != r {
			t.Errorf("%+v: packed %v, back %+v", r, ok, p.Ref())
		}
	}
	for _, r := range []Ref{{off: 1 << 40, n: 1}, {off: 0, n: 1 << 24}, {off: -1, n: 1}, {off: 0, n: -1}} {
		if _, ok := r.Pack(); ok {
			t.Errorf("%+v packed, want it refused", r)
		}
	}
}

// TestPackedReadsBack: a blob read through its packed Ref is the one put.
func TestPackedReadsBack(t *testing.T) {
	s := &Store{Owner: "packed-test"}
	defer s.Close()
	if _, err := s.Put([]byte("first")); err != nil {
		t.Fatal(err)
	}
	r, err := s.Put([]byte("second"))
	if err != nil {
		t.Fatal(err)
	}
	p, ok := r.Pack()
	if !ok {
		t.Fatalf("%+v did not pack", r)
	}
	if b, err := s.Get(p.Ref()); err != nil || string(b) != "second" {
		t.Fatalf("Get(packed) = %q, %v; want second", b, err)
	}
}
