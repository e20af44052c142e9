package stripe

import (
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/idemcheck/idemcheck/internal/spill"
	"github.com/idemcheck/idemcheck/internal/testseed"
)

// TestSeqIndexAgreesWithAMap files sequences as a PSP does (mostly rising,
// with gaps other objects took, a few filed late below the first, words
// changed in place) on disk and in memory, and compares every read and the
// newest-first order with a plain map's.
func TestSeqIndexAgreesWithAMap(t *testing.T) {
	for _, onDisk := range []bool{true, false} {
		seed := testseed.Seed(t)
		t.Logf("on disk %v: seed %d (IDEMCHECK_SEED=%d replays it)", onDisk, seed, seed)
		r := rand.New(rand.NewPCG(seed, 1))
		var disk *spill.Store
		if onDisk {
			disk = &spill.Store{Owner: "seqindex-test"}
			defer disk.Close()
		}
		x := newSeqIndex(disk, "test", &spill.FirstErr{})
		want := map[uint64]uint64{}
		next := uint64(5000)
		for range 3000 {
			switch n := r.IntN(10); {
			case n < 6 || len(want) == 0: // a new sequence, after a gap
				next += 1 + uint64(r.IntN(1200)) // some gaps wider than a block
				seq := next
				if r.IntN(50) == 0 {
					seq = uint64(1 + r.IntN(4999)) // filed late, below the first
					if _, dup := want[seq]; dup {
						continue
					}
				}
				v := 1 + r.Uint64N(1<<40)
				x.add(seq, v)
				want[seq] = v
			case n < 8: // a word changed in place
				seq := slices.Collect(maps.Keys(want))[r.IntN(len(want))]
				v := 1 + r.Uint64N(1<<40)
				x.set(seq, v)
				want[seq] = v
			default: // a read, of a filed sequence or of a gap
				seq := uint64(r.IntN(int(next) + 10))
				got, err := x.get(seq)
				if err != nil || got != want[seq] {
					t.Fatalf("get(%d) = %d, %v; want %d", seq, got, err, want[seq])
				}
			}
		}
		if x.len() != len(want) {
			t.Fatalf("len %d, want %d", x.len(), len(want))
		}
		order := slices.Sorted(maps.Keys(want))
		slices.Reverse(order)
		var got []uint64
		if err := x.each(func(seq, v uint64) bool {
			if v != want[seq] {
				t.Fatalf("each: %d has %d, want %d", seq, v, want[seq])
			}
			got = append(got, seq)
			return true
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, order) {
			t.Fatalf("each gave %d sequences, want the %d newest first", len(got), len(order))
		}
		var first []uint64
		_ = x.each(func(seq, _ uint64) bool { first = append(first, seq); return len(first) < 3 })
		if !slices.Equal(first, order[:3]) {
			t.Fatalf("each stopped after %v, want %v", first, order[:3])
		}
	}
}

// TestSeqIndexUnreadableIsAnError: once its store is closed, a filed
// sequence reads as an error, never as "none", which would tell a retrieve
// the PaymentIntent does not exist.
func TestSeqIndexUnreadableIsAnError(t *testing.T) {
	disk := &spill.Store{Owner: "seqindex-test"}
	failed := &spill.FirstErr{}
	x := newSeqIndex(disk, "test", failed)
	x.add(100, 7)
	x.add(101, 8)
	if err := disk.Close(); err != nil {
		t.Fatal(err)
	}
	if v, err := x.get(100); !errors.Is(err, spill.ErrClosed) {
		t.Fatalf("get after close = %d, %v; want ErrClosed", v, err)
	}
	if err := x.each(func(uint64, uint64) bool { return true }); !errors.Is(err, spill.ErrClosed) {
		t.Fatalf("each after close: %v, want ErrClosed", err)
	}
	if err := failed.Take(); !errors.Is(err, spill.ErrClosed) {
		t.Fatalf("the PSP's ReadError would be %v, want the failed read", err)
	}
	// A word whose write fails is kept in memory, not lost.
	x.add(102, 9)
	if v, err := x.get(102); v != 9 || err != nil {
		t.Fatalf("get of a word filed after close = %d, %v; want 9 from memory", v, err)
	}
}
