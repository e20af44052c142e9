package spill

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"sync"
)

// ChunkLen is how many records a Log keeps in memory before it writes them
// to its Store as one chunk: a Ref (16 B) per 64 records is a quarter of a
// byte each, and one Get reads back 64 of them.
const ChunkLen = 64

// Log is an append-only log of records kept on a Store, for what a long
// run must keep but rarely reads: fakepsp's ground truth, its calls and its
// webhook deliveries (issue 54). Records are buffered in a small tail and
// written ChunkLen at a time, gob-encoded, as one blob; memory keeps only
// the chunks' Refs and the tail. gob, not JSON: it keeps a time.Time's
// Location, so a record read back compares equal to the one added (save
// the monotonic clock reading, which nothing here compares). gob drops
// zero values behind pointers, so a T whose nil pointers mean something
// (history.Op) is logged as its own encoding (JSON) instead.
// Safe for concurrent use; the zero Log is not: set Store (NewLog).
type Log[T any] struct {
	store *Store

	mu     sync.Mutex
	chunks []Ref
	tail   []T
	n      int
	// writeErr is the first chunk that could not be written: its records
	// stay in memory (tail grows), so nothing is lost, and reads say so.
	writeErr error
}

// NewLog returns an empty log whose chunks go to s.
func NewLog[T any](s *Store) *Log[T] { return &Log[T]{store: s} }

// Add appends rec. A chunk that cannot be written stays in memory; Add
// never fails, as the event it records has happened whatever the disk says.
func (l *Log[T]) Add(rec T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tail = append(l.tail, rec)
	l.n++
	if len(l.tail) < ChunkLen || l.writeErr != nil {
		return
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(l.tail); err != nil {
		l.writeErr = fmt.Errorf("%s: encode a chunk of its log: %w", l.store.owner(), err)
		return
	}
	ref, err := l.store.Put(buf.Bytes())
	if err != nil {
		l.writeErr = err
		return
	}
	l.chunks = append(l.chunks, ref)
	// A fresh tail: the old one's records may still be referenced by
	// nothing, but its backing array would keep them alive.
	l.tail = make([]T, 0, ChunkLen)
}

// Len is how many records were added, without reading any.
func (l *Log[T]) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// Each calls fn on every record in order until fn returns false. A chunk
// that cannot be read is skipped, the records after it are still passed,
// and the first such error is returned: the caller has fewer records than
// were added and must say so, never take them for the whole log.
func (l *Log[T]) Each(fn func(T) bool) error { return l.EachFrom(0, fn) }

// EachFrom is Each from the record at position from on: the chunks before
// it are not read, so a reader that has seen the first records reads only
// what was added since.
func (l *Log[T]) EachFrom(from int, fn func(T) bool) error {
	return l.EachAt(from, func(_ int, r T) bool { return fn(r) })
}

// EachAt is EachFrom passing each record's position too: a chunk that
// cannot be read leaves a gap in the positions, the records after it keep
// theirs.
func (l *Log[T]) EachAt(from int, fn func(i int, r T) bool) error {
	l.mu.Lock()
	// chunks is only appended to: the header read under the lock names
	// chunks that never change. The tail is copied, as Add reuses it.
	chunks, tail := l.chunks, append([]T(nil), l.tail...)
	l.mu.Unlock()
	from = max(from, 0)
	var first error
	for i := from / ChunkLen; i < len(chunks); i++ {
		recs, err := l.chunk(chunks[i])
		if err != nil {
			if first == nil {
				first = fmt.Errorf("%s: chunk %d of %d of its log (records %d-%d): %w",
					l.store.owner(), i+1, len(chunks), i*ChunkLen+1, (i+1)*ChunkLen, err)
			}
			continue
		}
		at := i * ChunkLen
		if i == from/ChunkLen {
			recs = recs[from%ChunkLen:]
			at = from
		}
		for k, r := range recs {
			if !fn(at+k, r) {
				return first
			}
		}
	}
	at := len(chunks) * ChunkLen
	if skip := from - at; skip > 0 {
		skip = min(skip, len(tail))
		tail, at = tail[skip:], at+skip
	}
	for k, r := range tail {
		if !fn(at+k, r) {
			break
		}
	}
	return first
}

// All returns every record in order; with an error, the records it could
// read (see Each).
func (l *Log[T]) All() ([]T, error) {
	var out []T // nil when empty, as an append to nothing is
	if n := l.Len(); n > 0 {
		out = make([]T, 0, n)
	}
	err := l.Each(func(r T) bool { out = append(out, r); return true })
	return out, err
}

// WriteErr is the first chunk that could not be written (its records are
// kept in memory instead, so reads are whole).
func (l *Log[T]) WriteErr() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.writeErr
}

func (l *Log[T]) chunk(ref Ref) ([]T, error) {
	b, err := l.store.Get(ref)
	if err != nil {
		return nil, err
	}
	var recs []T
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&recs); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if len(recs) != ChunkLen {
		return nil, fmt.Errorf("decode: %d records, want %d", len(recs), ChunkLen)
	}
	return recs, nil
}
