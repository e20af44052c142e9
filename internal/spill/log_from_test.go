package spill

import (
	"strings"
	"testing"
)

// TestLogEachFrom: from any position (chunk starts and ends, the tail, the
// end, beyond it) EachFrom passes exactly the records from there on, in
// order, reading no chunk before it; a chunk it cannot read is its error.
func TestLogEachFrom(t *testing.T) {
	s := &Store{Owner: "test"}
	l := NewLog[rec](s)
	const n = 3*ChunkLen + 5
	for i := range n {
		l.Add(rec{N: i})
	}
	for _, from := range []int{-1, 0, 1, ChunkLen - 1, ChunkLen, ChunkLen + 1, 3 * ChunkLen, 3*ChunkLen + 4, n, n + 7} {
		want := min(max(from, 0), n)
		if err := l.EachFrom(from, func(r rec) bool {
			if r.N != want {
				t.Fatalf("from %d: record %d, want %d", from, r.N, want)
			}
			want++
			return true
		}); err != nil {
			t.Fatalf("from %d: %v", from, err)
		}
		if want != n {
			t.Fatalf("from %d: stopped before record %d, want all to %d", from, want, n)
		}
	}
	// From the tail on, no chunk is read: the closed store is not asked.
	// From within the third chunk, its read fails and says which chunk,
	// and the tail still comes.
	s.Close()
	tail := 0
	if err := l.EachFrom(3*ChunkLen, func(rec) bool { tail++; return true }); err != nil || tail != 5 {
		t.Fatalf("from the tail: %d records, %v; want its 5 and no read of a chunk", tail, err)
	}
	tail = 0
	if err := l.EachFrom(2*ChunkLen+3, func(rec) bool { tail++; return true }); err == nil || !strings.Contains(err.Error(), "chunk 3 of 3") || tail != 5 {
		t.Fatalf("from the third chunk: %d records, %v; want chunk 3's read to fail, then the tail's 5", tail, err)
	}
}

// TestLogEachAtKeepsPositionsAcrossALostChunk: EachAt passes each record
// with its position; a chunk it cannot read leaves a gap, not a shift.
func TestLogEachAtKeepsPositionsAcrossALostChunk(t *testing.T) {
	s := &Store{Owner: "test"}
	l := NewLog[rec](s)
	const n = 2*ChunkLen + 5
	for i := range n {
		l.Add(rec{N: i})
	}
	s.Close()
	for _, from := range []int{0, 3, ChunkLen + 1, 2*ChunkLen + 2, n + 1} {
		got := 0
		err := l.EachAt(from, func(i int, r rec) bool {
			if r.N != i || i < from {
				t.Fatalf("from %d: record %d at position %d", from, r.N, i)
			}
			got++
			return true
		})
		if want := min(5, n-max(from, 2*ChunkLen)); got != max(want, 0) || (err != nil) != (from < 2*ChunkLen) {
			t.Fatalf("from %d: %d records, %v; want the tail's %d", from, got, err, want)
		}
	}
}
