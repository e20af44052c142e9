package spill

import (
	"errors"
	"strconv"
	"testing"
)

// Page i holds records i*ChunkLen on, from disk or the tail, the last page
// short; a page past the end is an error, not an empty page.
func TestLogPageReadsOnePage(t *testing.T) {
	s := &Store{Owner: "test"}
	defer s.Close()
	l := NewLog[rec](s)
	const n = 2*ChunkLen + 5
	for i := range n {
		l.Add(rec{N: i, Name: "r" + strconv.Itoa(i)})
	}
	for p, want := range []int{ChunkLen, ChunkLen, 5} {
		got, err := l.Page(p)
		if err != nil {
			t.Fatalf("page %d: %v", p, err)
		}
		if len(got) != want {
			t.Fatalf("page %d: %d records, want %d", p, len(got), want)
		}
		for j, r := range got {
			if r.N != p*ChunkLen+j || r.Name != "r"+strconv.Itoa(r.N) {
				t.Fatalf("page %d record %d: %+v", p, j, r)
			}
		}
	}
	for _, p := range []int{-1, 3} {
		if got, err := l.Page(p); err == nil {
			t.Fatalf("page %d of %d records: %d records, no error", p, n, len(got))
		}
	}
}

// A chunk that cannot be read back is an error naming its records; pages
// still in memory read on, and so do those kept in memory after a chunk
// could not be written (the tail grows past one page).
func TestLogPageOfAnUnreadableChunk(t *testing.T) {
	s := &Store{Owner: "test"}
	l := NewLog[rec](s)
	for i := range ChunkLen + 3 {
		l.Add(rec{N: i})
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := l.Page(0); !errors.Is(err, ErrClosed) || got != nil {
		t.Fatalf("page 0 after Close: %d records, err %v; want ErrClosed and none", len(got), err)
	}
	for i := range 2 * ChunkLen {
		l.Add(rec{N: ChunkLen + 3 + i})
	}
	if l.WriteErr() == nil {
		t.Fatal("a chunk was written to a closed store")
	}
	for p, want := range []int{ChunkLen, ChunkLen, 3} {
		got, err := l.Page(p + 1)
		if err != nil || len(got) != want || got[0].N != (p+1)*ChunkLen {
			t.Fatalf("page %d in memory: %d records (want %d), err %v", p+1, len(got), want, err)
		}
	}
}

// A record naming a blob keeps its Ref through a chunk on disk, and the
// Ref still reads the blob.
func TestRefThroughALog(t *testing.T) {
	s := &Store{Owner: "test"}
	defer s.Close()
	type named struct {
		N   int
		Raw Ref
	}
	l := NewLog[named](s)
	for i := range ChunkLen {
		r, err := s.Put([]byte("blob-" + strconv.Itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		l.Add(named{N: i, Raw: r})
	}
	got, err := l.Page(0)
	if err != nil {
		t.Fatal(err)
	}
	for i, rec := range got {
		b, err := s.Get(rec.Raw)
		if err != nil || string(b) != "blob-"+strconv.Itoa(i) {
			t.Fatalf("record %d: blob %q, err %v", i, b, err)
		}
	}
	var r Ref
	if err := r.UnmarshalBinary([]byte{1, 2, 3}); err == nil {
		t.Fatal("a 3-byte Ref decoded")
	}
}
