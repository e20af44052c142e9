package spill

import (
	"errors"
	"fmt"
	"sync"
)

// Store is an append-only store on disk for what a long run must keep but
// need not hold in memory: fakepsp's saved idempotent answers, events' JSON
// and search versions, the recording front's exchanged bodies. A soak drives
// thousands of intents through one process; in memory these grew its heap
// without bound (issue 54). Each blob is written once and read back by its
// Ref, a fixed-size handle. The zero Store is ready to use.
//
// The file is created on the first Put under os.TempDir and unlinked at
// once where the system allows it (it lives on while open), so that no file
// is left behind even when the process is killed; Close closes it (and
// removes it where unlinking an open file failed). Safe for concurrent use.
type Store struct {
	// Owner names the store in its errors and its file (default "idemcheck").
	Owner string

	mu       sync.Mutex
	tempFile // nil f until the first Put
	size     int64
	closed   bool
	words    []*Words // closed with the store
}

// Ref names one blob of a Store. The zero Ref is the empty blob.
type Ref struct {
	off int64
	n   int32
}

// Len is the blob's length.
func (r Ref) Len() int { return int(r.n) }

// ErrClosed is a read or write after Close: the PSP is gone and what it
// kept on disk with it.
var ErrClosed = errors.New("the store on disk is closed (its owner was closed)")

// Put appends b and returns its handle.
func (s *Store) Put(b []byte) (Ref, error) {
	if len(b) == 0 {
		return Ref{}, nil
	}
	if len(b) > 1<<31-1 {
		return Ref{}, fmt.Errorf("%s: store on disk: a blob of %d bytes is too large", s.owner(), len(b))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.openLocked(); err != nil {
		return Ref{}, err
	}
	if _, err := s.f.WriteAt(b, s.size); err != nil {
		return Ref{}, fmt.Errorf("%s: store on disk %s: write: %w", s.owner(), s.path, err)
	}
	r := Ref{off: s.size, n: int32(len(b))}
	s.size += int64(len(b))
	return r, nil
}

// Get reads the blob r names. The error says what failed; a caller answers
// it as an error, never as a body.
func (s *Store) Get(r Ref) ([]byte, error) {
	if r.n == 0 {
		return []byte{}, nil
	}
	s.mu.Lock()
	f, closed, size := s.f, s.closed, s.size
	s.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	if f == nil || r.off < 0 || r.off+int64(r.n) > size {
		return nil, fmt.Errorf("%s: store on disk %s: no blob at %d+%d", s.owner(), s.path, r.off, r.n)
	}
	b := make([]byte, r.n)
	if _, err := f.ReadAt(b, r.off); err != nil {
		return nil, fmt.Errorf("%s: store on disk %s: read %d bytes at %d: %w", s.owner(), s.path, r.n, r.off, err)
	}
	return b, nil
}

// Path is the file's name ("" before the first Put); it no longer exists
// once unlinked.
func (s *Store) Path() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.path
}

// Size is how many bytes were written: what the PSP keeps on disk.
func (s *Store) Size() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.size
}

// Close closes the file and removes it; later Gets and Puts fail with
// ErrClosed.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var err error
	for _, w := range s.words {
		err = errors.Join(err, w.Close())
	}
	s.words = nil
	return errors.Join(err, s.tempFile.discard())
}

func (s *Store) openLocked() error {
	if s.closed {
		return ErrClosed
	}
	if s.f != nil {
		return nil
	}
	t, err := createTemp("idemcheck-" + s.owner() + "-*.spill")
	if err != nil {
		return fmt.Errorf("%s: store on disk: %w", s.owner(), err)
	}
	s.tempFile = t
	return nil
}

func (s *Store) owner() string {
	if s.Owner == "" {
		return "idemcheck"
	}
	return s.Owner
}
