package stripe

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// seqIndex maps creation sequences (the hex digits of newID's ids) to a
// nonzero word, in order: the account's index of its PaymentIntents and of
// its charges, which Stripe keeps forever and a soak files thousands of. On
// disk it is an array with one word per sequence since the first one filed
// (spill.Words, sparse where other objects took the sequences between), so
// memory keeps O(1) of it whatever the run's length; in memory (a slice
// sorted by sequence) it was 16 to 24 bytes an entry, the last thing a
// soak's heap grew by (issue 54).
//
// What the array cannot take stays in mem: everything when there is no
// store, a sequence below the array's first (a create that lost a race to
// file its id, see intentBook.Add), and a word whose write failed. Guarded
// by API.mu.
type seqIndex struct {
	what   string          // what it indexes, for its errors
	failed *spill.FirstErr // the PSP's reads that failed (API.ReadErr)
	words  *spill.Words
	base   uint64 // the sequence of words[0]; 0 until the first filed
	hi     uint64 // the highest sequence filed
	n      int
	mem    map[uint64]uint64
	sorted []uint64 // mem's sequences in order, nil when mem changed
}

func newSeqIndex(disk *spill.Store, what string, failed *spill.FirstErr) *seqIndex {
	x := &seqIndex{what: what, failed: failed, mem: map[uint64]uint64{}}
	if disk != nil {
		x.words = disk.Words(strings.ReplaceAll(what, " ", "-"))
	}
	return x
}

// unread is a read of the index that failed, as every caller reports it
// and as the PSP's ReadError keeps it.
func (x *seqIndex) unread(err error) error {
	err = fmt.Errorf("fakepsp: the index of %s cannot be read back: %w", x.what, err)
	x.failed.Keep(err)
	return err
}

// get is the word filed under seq, 0 when none; an error is a word that
// could not be read, which the caller must not take for "none".
func (x *seqIndex) get(seq uint64) (uint64, error) {
	if v, ok := x.mem[seq]; ok {
		return v, nil
	}
	if x.words == nil || x.base == 0 || seq < x.base || seq > x.hi {
		return 0, nil
	}
	v, err := x.words.Get(int64(seq - x.base))
	if err != nil {
		return 0, x.unread(err)
	}
	return v, nil
}

// add files a new sequence with its word (v != 0).
func (x *seqIndex) add(seq, v uint64) {
	x.hi = max(x.hi, seq)
	x.n++
	if x.words != nil && x.base == 0 {
		x.base = seq
	}
	x.set(seq, v)
}

// set changes the word of a filed sequence (v != 0).
func (x *seqIndex) set(seq, v uint64) {
	if _, inMem := x.mem[seq]; !inMem && x.words != nil && seq >= x.base &&
		x.words.Set(int64(seq-x.base), v) == nil {
		return
	}
	if _, inMem := x.mem[seq]; !inMem {
		x.sorted = nil
	}
	x.mem[seq] = v
}

// len is how many sequences are filed.
func (x *seqIndex) len() int { return x.n }

// eachBlock is how many words each reads at once.
const eachBlock = 512

// each calls fn on every filed sequence and its word, newest first, until fn
// returns false; a read that fails ends it with the error.
func (x *seqIndex) each(fn func(seq, v uint64) bool) error {
	if x.n == 0 {
		return nil
	}
	if x.sorted == nil {
		x.sorted = slices.Sorted(maps.Keys(x.mem))
	}
	// Copied: fn may file (an intent's read decodes it, and nothing else
	// changes the index under API.mu, but a copy costs little).
	memSeqs := slices.Clone(x.sorted)
	m := len(memSeqs) - 1
	// The array's words, highest first, merged with mem's sequences.
	top := uint64(0)
	if x.words != nil && x.base != 0 && x.hi >= x.base {
		top = x.hi
	}
	buf := make([]uint64, eachBlock)
	for s := top; top != 0; {
		from := x.base
		if s-x.base >= eachBlock {
			from = s - eachBlock + 1
		}
		blk := buf[:s-from+1]
		if err := x.words.Read(int64(from-x.base), blk); err != nil {
			return x.unread(err)
		}
		for j := len(blk) - 1; j >= 0; j-- {
			seq := from + uint64(j)
			for ; m >= 0 && memSeqs[m] > seq; m-- {
				if !fn(memSeqs[m], x.mem[memSeqs[m]]) {
					return nil
				}
			}
			if m >= 0 && memSeqs[m] == seq {
				continue // mem's word is the latest; it comes next
			}
			if blk[j] != 0 && !fn(seq, blk[j]) {
				return nil
			}
		}
		if from == x.base {
			break
		}
		s = from - 1
	}
	for ; m >= 0; m-- {
		if !fn(memSeqs[m], x.mem[memSeqs[m]]) {
			return nil
		}
	}
	return nil
}
