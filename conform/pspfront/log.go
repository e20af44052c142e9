package pspfront

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// The front keeps every exchange for the whole run (attribution reads
// them), and a soak makes thousands: their bodies go to disk, one blob per
// exchange (request then answer), and memory keeps the small fields and a
// handle. A body that could not be written stays in memory; one that cannot
// be read back is never replaced by another: the exchange comes back with
// its bodies empty and ReadError says so, which makes the check Errored.

// kept is one exchange in the log: the small fields, the method and path
// interned (a run's requests use a few of each), the key copied out of the
// request's header lines (a substring of them keeps the whole lines alive),
// and the bodies' handle.
type kept struct {
	method, path, key string
	blob              spill.Ref
	// split is where the request body ends in the blob.
	split  int32
	status uint16
	lost   bool
	// inMem says the disk refused the bodies: Front.inMem holds them.
	inMem bool
}

type bodies struct{ req, resp string }

// maxNames bounds the interned methods and paths: a path that names a
// payment is one of thousands, and past the bound each is only copied.
const maxNames = 1024

// keep appends x to the log.
func (f *Front) keep(x Exchange) {
	k := kept{key: strings.Clone(x.Key), status: uint16(x.Status), lost: x.Lost}
	ref, err := f.disk.Put([]byte(x.Body + x.RespBody))
	if err == nil {
		k.blob, k.split = ref, int32(len(x.Body))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		k.inMem = true
		if f.inMem == nil {
			f.inMem = map[int]bodies{}
		}
		f.inMem[len(f.log)] = bodies{x.Body, x.RespBody}
	}
	k.method, k.path = f.internLocked(x.Method), f.internLocked(x.Path)
	f.log = append(f.log, k)
}

func (f *Front) internLocked(s string) string {
	if v, ok := f.names[s]; ok {
		return v
	}
	s = strings.Clone(s)
	if len(f.names) < maxNames {
		if f.names == nil {
			f.names = map[string]string{}
		}
		f.names[s] = s
	}
	return s
}

// Exchanges returns every exchange so far, in arrival order of the answers.
func (f *Front) Exchanges() []Exchange {
	f.mu.Lock()
	log := append([]kept(nil), f.log...)
	out := make([]Exchange, len(log))
	for i, k := range log {
		if k.inMem {
			out[i].Body, out[i].RespBody = f.inMem[i].req, f.inMem[i].resp
		}
	}
	f.mu.Unlock()
	for i, k := range log {
		out[i].Method, out[i].Path, out[i].Key, out[i].Status, out[i].Lost = k.method, k.path, k.key, int(k.status), k.lost
		if k.inMem || k.blob.Len() == 0 {
			continue
		}
		if k.blob.Len() == 0 {
			continue
		}
		b, err := f.disk.Get(k.blob)
		if err != nil {
			f.readFailed(fmt.Errorf("pspfront: exchange %d (%s %s): %w", i, k.method, k.path, err))
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
