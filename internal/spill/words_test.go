package spill

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestWordsReadWhatWasSetAndZeroElsewhere(t *testing.T) {
	s := &Store{Owner: "words-test"}
	defer s.Close()
	w := s.Words("idx")
	if v, err := w.Get(5); v != 0 || err != nil {
		t.Fatalf("Get before any Set = %d, %v; want 0, nil", v, err)
	}
	for i, v := range map[int64]uint64{0: 7, 3: 1 << 63, 1000: 42} {
		if err := w.Set(i, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Set(3, 9); err != nil { // in place
		t.Fatal(err)
	}
	if w.Len() != 1001 {
		t.Fatalf("Len = %d, want 1001", w.Len())
	}
	got := make([]uint64, 6)
	if err := w.Read(0, got); err != nil {
		t.Fatal(err)
	}
	if want := []uint64{7, 0, 0, 9, 0, 0}; !slices.Equal(got, want) {
		t.Fatalf("Read(0) = %v, want %v", got, want)
	}
	// A read that runs past the end is zeros there, not an error.
	tail := []uint64{1, 1, 1, 1}
	if err := w.Read(999, tail); err != nil {
		t.Fatal(err)
	}
	if want := []uint64{0, 42, 0, 0}; !slices.Equal(tail, want) {
		t.Fatalf("Read(999) = %v, want %v", tail, want)
	}
	if _, err := w.Get(-1); err == nil {
		t.Fatal("Get(-1) gave no error")
	}
}

// TestWordsCloseWithTheirStore: no file is left, and a read after the
// store closed is an error, never a 0 (which every caller takes for "none").
func TestWordsCloseWithTheirStore(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	s := &Store{Owner: "words-test"}
	w := s.Words("idx")
	if err := w.Set(2, 5); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Get(2); !errors.Is(err, ErrClosed) {
		t.Fatalf("Get after the store closed: %v, want ErrClosed", err)
	}
	if err := w.Set(3, 1); !errors.Is(err, ErrClosed) {
		t.Fatalf("Set after the store closed: %v, want ErrClosed", err)
	}
	if late := s.Words("late"); late.Set(0, 1) == nil {
		t.Fatal("a Words made by a closed store took a write")
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(left) != 0 {
		t.Fatalf("files left after Close: %v", left)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
}
