package core

import (
	"fmt"
	"sync"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// diskLog is what the call log and the delivery log share: records on disk
// (a spill.Log, on a store of its own when none was given, so the zero
// value works), their count in memory, and the first read that failed,
// kept until ReadErr is asked, so that a short list is never taken for the
// whole.
type diskLog[T any] struct {
	mu      sync.Mutex
	store   *spill.Store
	log     *spill.Log[T]
	readErr spill.FirstErr
}

// all returns the records so far; a failed read returns those it could
// read and is remembered for ReadErr. what names the log and its records
// in the error ("call log", "calls").
func (l *diskLog[T]) all(what, records string) []T {
	out, err := l.allErr(what, records)
	l.readErr.Keep(err)
	return out
}

func (l *diskLog[T]) allErr(what, records string) ([]T, error) {
	l.mu.Lock()
	log := l.logLocked()
	l.mu.Unlock()
	out, err := log.All()
	if err != nil {
		return out, fmt.Errorf("fakepsp: %s: read %d of its %d %s: %w", what, len(out), log.Len(), records, err)
	}
	return out, nil
}

// Len is how many records were logged, without reading them.
func (l *diskLog[T]) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.logLocked().Len()
}

// ReadErr returns, and forgets, the first read of the log that failed
// since it was last asked.
func (l *diskLog[T]) ReadErr() error { return l.readErr.Take() }

func (l *diskLog[T]) logLocked() *spill.Log[T] {
	if l.log == nil {
		if l.store == nil {
			l.store = &spill.Store{Owner: "fakepsp"}
		}
		l.log = spill.NewLog[T](l.store)
	}
	return l.log
}
