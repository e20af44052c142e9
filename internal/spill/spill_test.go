package spill

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"testing"
)

func TestSpillPutGet(t *testing.T) {
	var s Store
	defer s.Close()
	if s.Path() != "" {
		t.Fatalf("a file before the first Put: %s", s.Path())
	}
	var refs []Ref
	for i := range 100 {
		r, err := s.Put([]byte("blob-" + strconv.Itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, r)
	}
	if got, want := s.Size(), int64(10*len("blob-0")+90*len("blob-10")); got != want {
		t.Fatalf("Size %d, want %d", got, want)
	}
	for i, r := range refs {
		b, err := s.Get(r)
		if err != nil {
			t.Fatal(err)
		}
		if want := "blob-" + strconv.Itoa(i); string(b) != want {
			t.Fatalf("blob %d: %q, want %q", i, b, want)
		}
	}
	empty, err := s.Put(nil)
	if err != nil || empty != (Ref{}) {
		t.Fatalf("empty put: %v %v", empty, err)
	}
	if b, err := s.Get(empty); err != nil || len(b) != 0 {
		t.Fatalf("empty get: %q %v", b, err)
	}
}

// The file is unlinked at once: nothing is left behind, even by a killed
// process; after Close the handles answer an error, never a body.
func TestSpillLeavesNoFileAndFailsAfterClose(t *testing.T) {
	var s Store
	r, err := s.Put([]byte("answer"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("spill file %s still has a name while open: %v", s.Path(), err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("spill file %s exists after Close: %v", s.Path(), err)
	}
	if b, err := s.Get(r); !errors.Is(err, ErrClosed) || b != nil {
		t.Fatalf("Get after Close: %q, %v; want ErrClosed", b, err)
	}
	if _, err := s.Put([]byte("x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Put after Close: %v; want ErrClosed", err)
	}
}

func TestSpillRefusesARefItNeverGave(t *testing.T) {
	var s Store
	defer s.Close()
	if _, err := s.Put([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	if b, err := s.Get(Ref{off: 2, n: 5}); err == nil || b != nil {
		t.Fatalf("Get past the end: %q, %v; want an error", b, err)
	}
	r, _ := s.Put([]byte("def"))
	if b, _ := s.Get(r); !bytes.Equal(b, []byte("def")) {
		t.Fatalf("got %q", b)
	}
}
