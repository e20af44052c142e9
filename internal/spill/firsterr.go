package spill

import "sync"

// FirstErr keeps the first failed read of what a run keeps on disk (or
// reads from afar) until its reader asks: a list read back short is then
// never taken for the whole, for the check that read it is Errored. The
// zero FirstErr is ready to use; safe for concurrent use.
type FirstErr struct {
	mu  sync.Mutex
	err error
}

// Keep remembers err unless an earlier error is still unasked; nil is
// ignored.
func (f *FirstErr) Keep(err error) {
	if err == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
	}
}

// Take returns, and forgets, the error kept since it was last asked.
func (f *FirstErr) Take() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	err := f.err
	f.err = nil
	return err
}
