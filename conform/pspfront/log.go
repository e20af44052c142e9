package pspfront

import (
	"fmt"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// The front keeps every exchange for the whole run (attribution reads
// them), and a soak makes thousands: their bodies go to disk, one blob per
// exchange (request then answer), and memory keeps the small fields and a
// handle. A body that could not be written stays in memory; one that cannot
// be read back is never replaced by another: the exchange comes back with
// its bodies empty and ReadError says so, which makes the check Errored.

// kept is one exchange in the log.
type kept struct {
	x    Exchange // Body and RespBody empty when on disk
	blob spill.Ref
	// split is where the request body ends in the blob.
	split int
}

// keep appends x to the log.
func (f *Front) keep(x Exchange) {
	k := kept{x: x}
	if ref, err := f.disk.Put([]byte(x.Body + x.RespBody)); err == nil {
		k.blob, k.split = ref, len(x.Body)
		k.x.Body, k.x.RespBody = "", ""
	}
	f.mu.Lock()
	f.log = append(f.log, k)
	f.mu.Unlock()
}

// Exchanges returns every exchange so far, in arrival order of the answers.
func (f *Front) Exchanges() []Exchange {
	f.mu.Lock()
	log := append([]kept(nil), f.log...)
	f.mu.Unlock()
	out := make([]Exchange, len(log))
	for i, k := range log {
		out[i] = k.x
		if k.blob.Len() == 0 {
			continue
		}
		b, err := f.disk.Get(k.blob)
		if err != nil {
			f.readFailed(fmt.Errorf("pspfront: exchange %d (%s %s): %w", i, k.x.Method, k.x.Path, err))
			continue
		}
		out[i].Body, out[i].RespBody = string(b[:k.split]), string(b[k.split:])
	}
	return out
}

// Len is how many exchanges Exchanges would return, without copying them:
// a judge asks it to tell whether what it derived from them still holds.
func (f *Front) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.log)
}

func (f *Front) readFailed(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.readErr == nil {
		f.readErr = err
	}
}

// ReadError returns, and forgets, the first exchange whose bodies could not
// be read back since the last call: a verdict judged on it stands on
// evidence the front lost.
func (f *Front) ReadError() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	err := f.readErr
	f.readErr = nil
	return err
}
