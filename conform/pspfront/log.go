package pspfront

import (
	"fmt"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// The front keeps every exchange for the whole run (attribution reads
// them), and a soak makes thousands: each is a record of a spill.Log, so
// memory holds only the chunks' handles (a quarter of a byte an exchange)
// and the last chunk's records. A chunk the disk refused stays in memory
// (spill.Log keeps it). A chunk that cannot be read back is never replaced
// by other exchanges: its exchanges come back empty in their places, the
// ones after it where they were, and ReadError says so, which makes the
// check Errored.

// logged is one exchange in the log, with its position (a chunk that
// cannot be read leaves a gap, and the exchanges after it must keep their
// index: a check slices Exchanges()[seen:]), in one byte slice of its own
// (record.go): gob decodes a slice with one copy, where five strings cost
// five, and reading the log back is what attribution does every round.
type logged struct {
	Raw []byte
}

// keep appends x to the log. The position is taken and the record added
// under f.mu, so positions follow the log's order.
func (f *Front) keep(x Exchange) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log.Add(logged{Raw: encodeRecord(f.log.Len(), x)})
}

// Exchanges returns every exchange so far, in arrival order of the answers.
// After Close, or when a chunk cannot be read back, ReadError says so; the
// exchanges it could not read are zero Exchanges at their positions.
func (f *Front) Exchanges() []Exchange {
	out, _ := f.ExchangesSince(0)
	return out
}

// ExchangesSince is Exchanges()[n:] without reading the first n back (a
// judge that read them holds what it derived from them), and the error
// ReadError will report when they are not all whole.
func (f *Front) ExchangesSince(n int) ([]Exchange, error) {
	total := f.log.Len()
	n = min(max(n, 0), total)
	out := make([]Exchange, total-n)
	_, err := f.EachSince(n, func(i int, x Exchange) { out[i-n] = x })
	return out, err
}

// EachSince calls fn on each exchange from position n on, with its
// position, in the log's order, and returns how many positions the log had
// when it began: a reader that keeps only what it derives from each (the
// judge's attribution) never holds the run's exchanges, bodies and answers
// of tens of megabytes, at once. The error is ExchangesSince's, kept for
// ReadError; an exchange that could not be read is skipped.
func (f *Front) EachSince(n int, fn func(i int, x Exchange)) (int, error) {
	f.mu.Lock()
	closed := f.closed
	f.mu.Unlock()
	total := f.log.Len()
	n = min(max(n, 0), total)
	got := 0
	var bad error
	err := f.log.EachFrom(n, func(r logged) bool {
		i, x, derr := decodeRecord(r.Raw)
		switch {
		case derr != nil:
			bad = derr
		case i >= n && i < total:
			fn(i, x)
			got++
		}
		return true
	})
	if err == nil {
		err = bad
	}
	switch {
	case err != nil:
		err = fmt.Errorf("pspfront: %d of its %d exchanges could not be read back: %w", total-n-got, total, err)
	case got != total-n:
		err = fmt.Errorf("pspfront: %d of its %d exchanges came back from its log", n+got, total)
	case closed:
		// What is still in memory came back, but the front is gone and
		// its log on disk with it: no verdict should be judged on it.
		err = fmt.Errorf("pspfront: its exchanges were read after Close: %w", spill.ErrClosed)
	}
	if err != nil {
		f.readErr.Keep(err)
	}
	return total, err
}

// Len is how many exchanges Exchanges would return, without reading them:
// a judge asks it to tell whether what it derived from them still holds.
func (f *Front) Len() int { return f.log.Len() }

// ReadError returns, and forgets, the first failure to read the exchanges
// back since the last call: a verdict judged on them stands on evidence the
// front lost.
func (f *Front) ReadError() error { return f.readErr.Take() }
