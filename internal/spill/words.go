package spill

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Words is an array of uint64 on disk, each read and written in place: the
// index a long run keeps one entry in per record it can be asked for again
// (fakepsp's PaymentIntents by creation sequence, its charges, its
// idempotency keys' hashes). In memory those indexes were the last thing a
// soak's heap grew by per intent, 24 to 70 bytes each (issue 54). A word
// never written reads 0, so 0 is every caller's "none"; the file is sparse
// where nothing was written.
//
// Its file is made on the first Set in os.TempDir and unlinked at once
// where the system allows, as a Store's; a Words a Store made (Store.Words)
// is closed with it. Safe for concurrent use.
type Words struct {
	owner string

	mu       sync.Mutex
	tempFile       // nil f until the first Set
	n        int64 // one past the highest word written
	closed   bool
}

// Words makes an empty array on disk that s closes with itself: what
// indexes s's records lives and dies with them.
func (s *Store) Words(name string) *Words {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := &Words{owner: s.owner() + "-" + name, closed: s.closed}
	s.words = append(s.words, w)
	return w
}

// Len is one past the highest index written.
func (w *Words) Len() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// Get is word i; 0 when never written.
func (w *Words) Get(i int64) (uint64, error) {
	var v [1]uint64
	err := w.Read(i, v[:])
	return v[0], err
}

// Read fills dst with the words from index i on; those never written are 0.
func (w *Words) Read(i int64, dst []uint64) error {
	if i < 0 {
		return fmt.Errorf("%s: words on disk: index %d", w.owner, i)
	}
	clear(dst)
	w.mu.Lock()
	f, closed, n := w.f, w.closed, w.n
	w.mu.Unlock()
	if closed {
		return ErrClosed
	}
	if f == nil || i >= n {
		return nil
	}
	m := min(int64(len(dst)), n-i)
	b := make([]byte, 8*m)
	if _, err := f.ReadAt(b, 8*i); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: words on disk %s: read %d at %d: %w", w.owner, w.path, m, i, err)
	}
	for j := range m {
		dst[j] = binary.LittleEndian.Uint64(b[8*j:])
	}
	return nil
}

// Set writes v at index i.
func (w *Words) Set(i int64, v uint64) error {
	if i < 0 {
		return fmt.Errorf("%s: words on disk: index %d", w.owner, i)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	if w.f == nil {
		t, err := createTemp("idemcheck-" + w.owner + "-*.words")
		if err != nil {
			return fmt.Errorf("%s: words on disk: %w", w.owner, err)
		}
		w.tempFile = t
	}
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	if _, err := w.f.WriteAt(b[:], 8*i); err != nil {
		return fmt.Errorf("%s: words on disk %s: write at %d: %w", w.owner, w.path, i, err)
	}
	w.n = max(w.n, i+1)
	return nil
}

// Close closes the file and removes it; later reads and writes fail with
// ErrClosed.
func (w *Words) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	return w.tempFile.discard()
}
