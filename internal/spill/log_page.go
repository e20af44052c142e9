package spill

import "fmt"

// Page returns records [i*ChunkLen, (i+1)*ChunkLen) of the log, fewer for
// its last page: a chunk read back from disk, or a copy of records still in
// memory (the tail, or every record since a chunk could not be written). A
// reader that keeps a compact index of its own (a record's key per page)
// reads one page instead of the whole log. A chunk that cannot be read is an
// error naming its records, never a shorter page.
func (l *Log[T]) Page(i int) ([]T, error) {
	l.mu.Lock()
	n, chunks := l.n, l.chunks
	if i < 0 || i*ChunkLen >= n {
		l.mu.Unlock()
		return nil, fmt.Errorf("%s: page %d of a log of %d records", l.store.owner(), i, n)
	}
	if i >= len(chunks) {
		from := (i - len(chunks)) * ChunkLen
		recs := append([]T(nil), l.tail[from:min(from+ChunkLen, len(l.tail))]...)
		l.mu.Unlock()
		return recs, nil
	}
	l.mu.Unlock()
	recs, err := l.chunk(chunks[i])
	if err != nil {
		return nil, fmt.Errorf("%s: chunk %d of %d of its log (records %d-%d): %w",
			l.store.owner(), i+1, len(chunks), i*ChunkLen+1, (i+1)*ChunkLen, err)
	}
	return recs, nil
}
