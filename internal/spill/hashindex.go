package spill

import (
	"errors"
	"fmt"
)

// HashIndex is a map from uint64 to uint64 on disk, for an index a long run
// keeps one entry in per record for its whole length: fakepsp's idempotency
// keys, kept 24 h at Stripe, so every one a soak sends. In memory such a map
// was the largest thing a soak's heap still grew by (issue 54); here memory
// keeps the count, the capacity and the Words, whatever the entries (and
// the Store, until it closes, the closed Words of each doubling: a few
// hundred bytes per doubling, 15 of them for a million keys).
//
// It is an open-addressing table with linear probing in a Words, two words
// an entry (key, value), where a key word of 0 is an empty slot: the key 0
// is kept in the first two words instead, so every key is a key. Deleting
// shifts the entries behind back rather than leave tombstones, so probe
// chains stay as short as the load makes them; the table doubles past half
// full. A lookup reads a window of entries at once: one system call per
// probe chain, not per word.
//
// An error is what failed, never an absent key: a caller that takes
// "absent" for a fresh start would act twice. Once a write failed part-way
// the table may be inconsistent, so every later call returns that error.
// A HashIndex lives on its Store's disk and closes with it. Not safe for
// concurrent use: its owner guards it.
type HashIndex struct {
	store *Store
	name  string
	w     *Words
	slots int64 // capacity in entries, a power of two
	n     int   // entries, the key 0 included
	err   error // a write that failed: the table is no longer trusted
}

const (
	hashHeader   = 2   // words before the table: the key 0's presence and value
	hashMinSlots = 64  // a first table of 1 KiB, sparse until written
	hashWindow   = 8   // entries read at once: a probe chain at half load is short
	hashChunk    = 512 // entries read at once while rehashing
	hashMul      = 0x9E3779B97F4A7C15
)

// HashIndex makes an empty index on s's disk, closed with s.
func (s *Store) HashIndex(name string) *HashIndex {
	return &HashIndex{store: s, name: name, w: s.Words(name), slots: hashMinSlots}
}

// Len is how many keys the index holds.
func (h *HashIndex) Len() int { return h.n }

// Get is k's value; ok is false only when k is known absent.
func (h *HashIndex) Get(k uint64) (v uint64, ok bool, err error) {
	if h.err != nil {
		return 0, false, h.err
	}
	if k == 0 {
		var zero [hashHeader]uint64
		if err := h.w.Read(0, zero[:]); err != nil {
			return 0, false, h.errorf("get", err)
		}
		if zero[0] == 0 {
			return 0, false, nil // a deleted key 0 leaves its value word
		}
		return zero[1], true, nil
	}
	p := h.probe()
	_, v, ok, err = p.find(k)
	return v, ok, err
}

// Put sets k's value, inserting k when absent.
func (h *HashIndex) Put(k, v uint64) error {
	_, err := h.insert(k, v, true)
	return err
}

// Add inserts k with value v unless k is present, and says whether it
// did: a Get and a Put in one probe, for a caller that must not replace
// another's entry.
func (h *HashIndex) Add(k, v uint64) (added bool, err error) {
	return h.insert(k, v, false)
}

// insert puts k's entry, replacing a present one's value when replace.
func (h *HashIndex) insert(k, v uint64, replace bool) (added bool, err error) {
	if h.err != nil {
		return false, h.err
	}
	if k == 0 {
		_, ok, err := h.Get(0)
		if err != nil || (ok && !replace) {
			return false, err
		}
		// The value first: a flag written alone would give 0 for k's value.
		if err := h.set(1, v); err != nil {
			return false, err
		}
		if !ok {
			if err := h.set(0, 1); err != nil {
				return false, err
			}
			h.n++
		}
		return !ok, nil
	}
	p := h.probe()
	i, _, ok, err := p.find(k)
	if err != nil || (ok && !replace) {
		return false, err
	}
	if ok {
		return false, h.set(hashHeader+2*i+1, v)
	}
	if 2*int64(h.n+1) > h.slots {
		if err := h.grow(); err != nil {
			return false, err
		}
		p = h.probe()
		if i, _, _, err = p.find(k); err != nil {
			return false, err
		}
	}
	if err := h.put(i, k, v); err != nil {
		return false, err
	}
	h.n++
	return true, nil
}

// Delete removes k; deleting an absent key is not an error.
func (h *HashIndex) Delete(k uint64) error {
	if h.err != nil {
		return h.err
	}
	if k == 0 {
		_, ok, err := h.Get(0)
		if err != nil || !ok {
			return err
		}
		if err := h.set(0, 0); err != nil {
			return err
		}
		h.n--
		return nil
	}
	p := h.probe()
	hole, _, ok, err := p.find(k)
	if err != nil || !ok {
		return err
	}
	// Each entry after the hole, up to the next empty slot, that the hole
	// lies on the probe path of (between its home and its slot) moves back
	// into it, leaving its own slot the hole: no lookup then stops short of
	// an entry at an empty slot.
	mask := h.slots - 1
	for j := (hole + 1) & mask; ; j = (j + 1) & mask {
		key, v, err := p.entry(j)
		if err != nil {
			return err
		}
		if key == 0 {
			break
		}
		if (j-h.home(key))&mask >= (j-hole)&mask {
			if err := h.put(hole, key, v); err != nil {
				return err
			}
			hole = j
		}
	}
	if err := h.set(hashHeader+2*hole, 0); err != nil {
		return err
	}
	h.n--
	return nil
}

// home is k's first slot: the top bits of k times 2^64/φ (Fibonacci
// hashing), which every bit of k moves, so keys that share their low bits
// (sequence numbers, aligned offsets) still spread over the table.
func (h *HashIndex) home(k uint64) int64 {
	return int64((k * hashMul) >> (64 - log2(h.slots)))
}

func log2(n int64) uint {
	b := uint(0)
	for n > 1 {
		n >>= 1
		b++
	}
	return b
}

// put writes an entry at slot i, the value first: a key written alone
// would be found with another entry's value.
func (h *HashIndex) put(i int64, k, v uint64) error {
	if err := h.set(hashHeader+2*i+1, v); err != nil {
		return err
	}
	return h.set(hashHeader+2*i, k)
}

// set writes one word; a failure leaves the table untrusted from then on.
func (h *HashIndex) set(i int64, v uint64) error {
	if err := h.w.Set(i, v); err != nil {
		h.err = h.errorf("write", err)
		return h.err
	}
	return nil
}

// grow rehashes every entry into a table twice the size, then drops the
// old one; until the new table is whole the old stays the index, so a
// failure loses nothing.
func (h *HashIndex) grow() error {
	next := &HashIndex{store: h.store, name: h.name, w: h.store.Words(h.name), slots: 2 * h.slots}
	// A failure leaves the old table the index, whole: next's sticky
	// error is its own, not h's.
	fail := func(err error) error {
		_ = next.w.Close()
		return err
	}
	var zero [hashHeader]uint64
	if err := h.w.Read(0, zero[:]); err != nil {
		return fail(h.errorf("grow", err))
	}
	if zero[0] != 0 {
		if err := next.set(1, zero[1]); err != nil {
			return fail(err)
		}
		if err := next.set(0, 1); err != nil {
			return fail(err)
		}
	}
	buf := make([]uint64, 2*hashChunk)
	for at := int64(0); at < h.slots; at += hashChunk {
		m := min(hashChunk, h.slots-at)
		if err := h.w.Read(hashHeader+2*at, buf[:2*m]); err != nil {
			return fail(h.errorf("grow", err))
		}
		for j := range m {
			k, v := buf[2*j], buf[2*j+1]
			if k == 0 {
				continue
			}
			p := next.probe()
			i, _, _, err := p.find(k)
			if err != nil {
				return fail(err)
			}
			if err := next.put(i, k, v); err != nil {
				return fail(err)
			}
		}
	}
	old := h.w
	h.w, h.slots = next.w, next.slots
	// The old table's file is gone with it whether or not closing it
	// reports an error; the index is whole in the new one.
	_ = old.Close()
	return nil
}

func (h *HashIndex) errorf(op string, err error) error {
	return fmt.Errorf("%s: index %s on disk: %s: %w", h.store.owner(), h.name, op, err)
}

// probe reads a table's slots a window at a time, keeping the last window.
type probe struct {
	h      *HashIndex
	buf    [2 * hashWindow]uint64
	at, n  int64 // slots buf holds: [at, at+n)
	loaded bool
}

func (h *HashIndex) probe() *probe { return &probe{h: h} }

// entry is slot i's key and value (key 0: empty).
func (p *probe) entry(i int64) (k, v uint64, err error) {
	if !p.loaded || i < p.at || i >= p.at+p.n {
		// A window stops at the table's end rather than wrap: one read.
		m := min(hashWindow, p.h.slots-i)
		if err := p.h.w.Read(hashHeader+2*i, p.buf[:2*m]); err != nil {
			p.loaded = false
			return 0, 0, p.h.errorf("read", err)
		}
		p.at, p.n, p.loaded = i, m, true
	}
	j := 2 * (i - p.at)
	return p.buf[j], p.buf[j+1], nil
}

// find is k's slot and value when present, else the empty slot that ends
// its probe chain, where k would go.
func (p *probe) find(k uint64) (slot int64, v uint64, ok bool, err error) {
	mask := p.h.slots - 1
	i := p.h.home(k)
	for range p.h.slots {
		key, v, err := p.entry(i)
		if err != nil {
			return 0, 0, false, err
		}
		if key == k {
			return i, v, true, nil
		}
		if key == 0 {
			return i, 0, false, nil
		}
		i = (i + 1) & mask
	}
	return 0, 0, false, p.h.errorf("find", errors.New("no empty slot in a table kept at most half full"))
}
