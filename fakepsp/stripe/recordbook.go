package stripe

import (
	"encoding/json"
	"fmt"
	"iter"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// recordBook is one account's objects of a kind that never change once
// made (its Refunds, its declined charges), which Stripe keeps forever and
// a soak's refund and decline shapes make hundreds of: each is written to
// disk as JSON when filed and found by its creation sequence (the hex
// digits of its id, newID) in a seqIndex, so memory keeps nothing per
// record. In memory they were a few hundred bytes each, metadata included
// (issue 54). Without a store, or when writing fails, a record stays in
// memory. Guarded by API.mu.
type recordBook[T any] struct {
	kind   string // the object's name, for errors
	disk   *spill.Store
	idx    *seqIndex // sequence -> slotWord of the record on disk; slotWord(0): in mem
	mem    map[uint64]*T
	idOf   func(*T) string
	failed *spill.FirstErr
}

func newRecordBook[T any](disk *spill.Store, kind string, idOf func(*T) string, failed *spill.FirstErr) *recordBook[T] {
	return &recordBook[T]{kind: kind, disk: disk, idx: newSeqIndex(disk, kind+"s", failed), mem: map[uint64]*T{}, idOf: idOf, failed: failed}
}

// add files r, which is never changed after.
func (b *recordBook[T]) add(r *T) {
	seq, _ := idSeqOf(b.idOf(r))
	if b.disk != nil {
		if raw, err := json.Marshal(r); err == nil {
			if ref, err := b.disk.Put(raw); err == nil {
				if p, ok := ref.Pack(); ok {
					b.idx.add(seq, slotWord(p))
					return
				}
			}
		}
	}
	b.mem[seq] = r
	b.idx.add(seq, slotWord(0))
}

// get is the record id names; nil when none. An error is a record that
// cannot be read back, which the caller answers as an error, never a 404.
func (b *recordBook[T]) get(id string) (*T, error) {
	seq, ok := idSeqOf(id)
	if !ok {
		return nil, nil
	}
	w, err := b.idx.get(seq)
	if err != nil || w == 0 {
		return nil, err
	}
	r, err := b.at(seq, w)
	if r == nil || b.idOf(r) != id {
		return nil, err
	}
	return r, nil
}

// at is the record of sequence seq whose word is w.
func (b *recordBook[T]) at(seq, w uint64) (*T, error) {
	if w == slotWord(0) {
		return b.mem[seq], nil
	}
	raw, err := b.disk.Get(slotRef(w))
	if err == nil {
		r := new(T)
		if err = json.Unmarshal(raw, r); err == nil {
			if s, _ := idSeqOf(b.idOf(r)); s == seq {
				return r, nil
			}
			err = fmt.Errorf("the record is not the %s's", b.kind)
		}
	}
	err = fmt.Errorf("fakepsp: %s %012x… cannot be read back: %w", b.kind, seq, err)
	b.failed.Keep(err)
	return nil, err
}

// each calls fn on every record, newest first, until fn returns false; a
// read that fails ends it with the error.
func (b *recordBook[T]) each(fn func(*T) bool) error {
	var failed error
	err := b.idx.each(func(seq, w uint64) bool {
		r, err := b.at(seq, w)
		if err != nil {
			failed = err
			return false
		}
		return r == nil || fn(r)
	})
	if err != nil {
		return err
	}
	return failed
}

// all is each as an iterator, for merging: a read that fails is its last
// pair, with a nil record.
func (b *recordBook[T]) all() iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		stopped := false
		if err := b.each(func(r *T) bool { stopped = !yield(r, nil); return !stopped }); err != nil && !stopped {
			yield(nil, err)
		}
	}
}
