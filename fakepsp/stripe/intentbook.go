package stripe

import (
	"cmp"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// intentBook is one account's PaymentIntents, which Stripe keeps forever:
// a write-back cache (issue 54). A few recently used intents stay in
// memory; the rest are on disk (encodeIntent), and the book finds each by
// its creation sequence (the hex digits of its id, newID) in slots, an
// index on disk whose word is where the intent's latest record is: memory
// keeps nothing per intent, which a soak files thousands of. An id's random
// part is checked against the record read back. Without a store, or while
// writing fails, intents stay in memory.
//
// API.mu guards it. A request that changes an intent pins it (pin) for as
// long as it runs, so core.Ops, which takes and releases the lock several
// times, changes the one *Intent the book holds: a pinned intent is never
// evicted. Reads (peek) of an evicted intent decode a copy the book does
// not keep and nobody changes.
type intentBook struct {
	disk   *spill.Store
	store  *versionStore
	failed *spill.FirstErr // the PSP's reads that failed (API.ReadErr)
	// keep is how many unpinned intents stay in memory; evicting brings
	// them down to half, so the sort that picks them runs once per keep/2
	// evictions, not once each.
	keep  int
	slots *seqIndex // sequence -> slotWord of its latest record
	live  map[uint64]*Intent
	tick  uint64
}

// slotWord is the word slots keep for a record at ref: 0 is "no intent",
// so a filed intent whose record is not written yet (the zero Ref) is 1.
// A ref that does not pack is never filed: its intent stays in memory.
func slotWord(p spill.Packed) uint64 { return uint64(p) + 1 }

func slotRef(w uint64) spill.Ref { return spill.Packed(w - 1).Ref() }

// defaultKeep is enough for every request in flight at once, and small
// beside a soak's thousands of intents.
const defaultKeep = 128

func newIntentBook(disk *spill.Store, store *versionStore, failed *spill.FirstErr) *intentBook {
	return &intentBook{disk: disk, store: store, failed: failed, keep: defaultKeep, live: map[uint64]*Intent{},
		slots: newSeqIndex(disk, "PaymentIntents", failed)}
}

// idSeqOf is the creation sequence an id of newID's spells, and whether it
// spells one.
func idSeqOf(id string) (uint64, bool) {
	_, rest, ok := strings.Cut(id, "_")
	if !ok || len(rest) < 12 {
		return 0, false
	}
	b, err := hex.DecodeString(rest[:12])
	if err != nil {
		return 0, false
	}
	var n uint64
	for _, x := range b {
		n = n<<8 | uint64(x)
	}
	return n, true
}

// Add files a new intent, pinned: its request holds it until unpin. Its
// id was made before the lock was taken (createIntent), so a concurrent
// create may have filed a later sequence first; the index takes sequences
// in any order.
func (b *intentBook) Add(pi *Intent) {
	seq, _ := idSeqOf(pi.ID)
	b.slots.add(seq, slotWord(0))
	pi.pins++
	b.use(seq, pi)
}

// peek is the intent id names, for reading only; nil when none.
func (b *intentBook) peek(id string) (*Intent, error) {
	seq, ok := idSeqOf(id)
	if !ok {
		return nil, nil
	}
	pi, err := b.bySeq(seq)
	if pi == nil || pi.ID != id {
		return nil, err
	}
	return pi, err
}

// bySeq is the intent of creation sequence seq, for reading only; nil when
// none.
func (b *intentBook) bySeq(seq uint64) (*Intent, error) {
	if pi := b.live[seq]; pi != nil {
		return pi, nil
	}
	w, err := b.slots.get(seq)
	if err != nil || w == 0 {
		return nil, err
	}
	return b.at(seq, w)
}

// at is the intent of sequence seq whose slot word is w, for reading only.
func (b *intentBook) at(seq, w uint64) (*Intent, error) {
	if pi := b.live[seq]; pi != nil {
		return pi, nil
	}
	raw, err := b.disk.Get(slotRef(w))
	if err == nil {
		var pi *Intent
		if pi, err = decodeIntent(raw, b.store); err == nil {
			if s, _ := idSeqOf(pi.ID); s == seq {
				return pi, nil
			}
			err = errBadRecord
		}
	}
	// Its id's random part is in the record that failed: the sequence
	// names it.
	err = fmt.Errorf("fakepsp: PaymentIntent pi_%012x… cannot be read back: %w", seq, err)
	b.failed.Keep(err) // the PSP's ReadError says so too, whatever answer the caller gives
	return nil, err
}

// pin is the intent id names, kept in memory until unpin.
func (b *intentBook) pin(id string) (*Intent, error) {
	pi, err := b.peek(id)
	if pi == nil {
		return nil, err
	}
	pi.pins++
	seq, _ := idSeqOf(id)
	b.use(seq, pi)
	return pi, nil
}

// unpin ends a request's hold on pi; it may be evicted from now on.
func (b *intentBook) unpin(pi *Intent) {
	pi.pins--
	pi.dirty = true // whatever the request changed is written when evicted
	b.evict()
}

// use makes pi the book's, resident and the most recently used.
func (b *intentBook) use(seq uint64, pi *Intent) {
	b.tick++
	pi.used = b.tick
	b.live[seq] = pi
}

// evict writes the least recently used unpinned intents to disk until
// half of keep stay, once more than keep are in memory.
func (b *intentBook) evict() {
	if b.disk == nil || len(b.live) <= b.keep {
		return
	}
	var out []*Intent
	for _, pi := range b.live {
		if pi.pins == 0 {
			out = append(out, pi)
		}
	}
	slices.SortFunc(out, func(x, y *Intent) int { return cmp.Compare(x.used, y.used) })
	for _, pi := range out[:max(0, min(len(out), len(b.live)-b.keep/2))] {
		b.writeBack(pi)
	}
}

// writeBack moves pi to disk; one that cannot be written (or whose slot
// cannot be read, or whose record's place does not pack) stays in memory.
func (b *intentBook) writeBack(pi *Intent) {
	seq, _ := idSeqOf(pi.ID)
	w, err := b.slots.get(seq)
	if err != nil {
		return
	}
	if pi.dirty || w == slotWord(0) {
		raw, err := encodeIntent(pi)
		if err != nil {
			return
		}
		ref, err := b.disk.Put(raw)
		if err != nil {
			return
		}
		p, ok := ref.Pack()
		if !ok {
			return
		}
		b.slots.set(seq, slotWord(p))
		pi.dirty = false
	}
	delete(b.live, seq)
}

// each calls fn on every intent, newest first, for reading only, until fn
// returns false; a read that fails ends it with the error.
func (b *intentBook) each(fn func(*Intent) bool) error {
	var failed error
	err := b.slots.each(func(seq, w uint64) bool {
		pi, err := b.at(seq, w)
		if err != nil {
			failed = err
			return false
		}
		return fn(pi)
	})
	return cmp.Or(err, failed)
}

// Get is the intent id names, nil when none or when it cannot be read back
// (the error is the PSP's ReadError then).
func (b *intentBook) Get(id string) *Intent {
	pi, _ := b.peek(id)
	return pi
}
