package spill

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

var hashIndexSeed = flag.Uint64("hashindex-seed", 0, "the seed of TestHashIndexAgainstAMap's operations (0: the time)")

// homeKeys are n keys whose home slot is the same at every capacity up to
// 2^20 slots, all in chain: k times hashMul has the top 20 bits top, so k is
// that product times hashMul's inverse.
func homeKeys(top uint64, n int) []uint64 {
	inv := uint64(hashMul) // Newton's iteration: each step doubles the bits that are right
	for range 6 {
		inv *= 2 - hashMul*inv
	}
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = (top<<44 | uint64(i+1)) * inv
	}
	return keys
}

// checkIndex compares every key of want, and Len, with h.
func checkIndex(t *testing.T, h *HashIndex, want map[uint64]uint64, when string) {
	t.Helper()
	if h.Len() != len(want) {
		t.Fatalf("%s: Len %d, want %d", when, h.Len(), len(want))
	}
	for k, wv := range want {
		if v, ok, err := h.Get(k); err != nil || !ok || v != wv {
			t.Fatalf("%s: Get(%#x) = %d, %v, %v; want %d, true", when, k, v, ok, err, wv)
		}
	}
}

// TestHashIndexAgainstAMap: random Puts, Gets and Deletes agree with a Go
// map, over keys drawn so that chains are long (keys sharing a home slot,
// keys sharing their low bits, the key 0) and the table doubles several
// times while entries come and go.
func TestHashIndexAgainstAMap(t *testing.T) {
	seed := *hashIndexSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (-hashindex-seed=%[1]d repeats this run)", seed)
	r := rand.New(rand.NewPCG(seed, seed>>1))
	s := &Store{Owner: "hashindex-test"}
	defer s.Close()
	h := s.HashIndex("idx")
	pools := [][]uint64{
		homeKeys(0, 40), homeKeys(1<<20-1, 40), // the last slot's chain wraps to the first
		{0, 1, 2, 3},
	}
	lowBits := make([]uint64, 200)
	for i := range lowBits {
		lowBits[i] = uint64(i+1)<<40 | 0xbeef
	}
	pools = append(pools, lowBits)
	wide := make([]uint64, 3000)
	for i := range wide {
		wide[i] = r.Uint64()
	}
	pools = append(pools, wide)
	want := map[uint64]uint64{}
	for op := range 40000 {
		pool := pools[r.IntN(len(pools))]
		k := pool[r.IntN(len(pool))]
		switch c := r.IntN(10); {
		case c < 4: // Put, the more so that the table grows
			v := r.Uint64()
			if err := h.Put(k, v); err != nil {
				t.Fatalf("op %d: Put(%#x): %v", op, k, err)
			}
			want[k] = v
		case c < 5:
			v := r.Uint64()
			added, err := h.Add(k, v)
			_, had := want[k]
			if err != nil || added == had {
				t.Fatalf("op %d: Add(%#x) = %v, %v; want added %v", op, k, added, err, !had)
			}
			if added {
				want[k] = v
			}
		case c < 8:
			if err := h.Delete(k); err != nil {
				t.Fatalf("op %d: Delete(%#x): %v", op, k, err)
			}
			delete(want, k)
		default:
			v, ok, err := h.Get(k)
			wv, wok := want[k]
			if err != nil || ok != wok || v != wv {
				t.Fatalf("op %d: Get(%#x) = %d, %v, %v; want %d, %v", op, k, v, ok, err, wv, wok)
			}
		}
		if op%2000 == 0 {
			checkIndex(t, h, want, fmt.Sprint("after op ", op))
		}
	}
	checkIndex(t, h, want, "at the end")
	if h.slots < 1024 {
		t.Fatalf("table of %d slots: want several doublings from %d", h.slots, hashMinSlots)
	}
}

// TestHashIndexChains: a chain of keys sharing a home slot, deleted from
// its middle and its head and filled again, keeps every key reachable, with
// the table doubling under it; a deleted key is absent, and so is a key
// never put that shares the chain.
func TestHashIndexChains(t *testing.T) {
	s := &Store{Owner: "hashindex-test"}
	defer s.Close()
	h := s.HashIndex("idx")
	for _, top := range []uint64{5, 1<<20 - 1} {
		keys := homeKeys(top, 60)
		want := map[uint64]uint64{}
		for i, k := range keys[:50] {
			if err := h.Put(k, uint64(i)+100); err != nil {
				t.Fatal(err)
			}
			want[k] = uint64(i) + 100
		}
		for _, i := range []int{0, 25, 26, 49, 1, 10} {
			if err := h.Delete(keys[i]); err != nil {
				t.Fatal(err)
			}
			delete(want, keys[i])
			if _, ok, err := h.Get(keys[i]); ok || err != nil {
				t.Fatalf("deleted key %d: ok %v, %v", i, ok, err)
			}
		}
		checkIndex(t, h, want, "after deletes in the chain")
		for _, i := range []int{25, 0, 55} {
			if err := h.Put(keys[i], 7); err != nil {
				t.Fatal(err)
			}
			want[keys[i]] = 7
		}
		checkIndex(t, h, want, "after reinserting")
		if _, ok, err := h.Get(keys[59]); ok || err != nil {
			t.Fatalf("a key never put, on the chain: ok %v, %v", ok, err)
		}
		for k := range want {
			if err := h.Delete(k); err != nil {
				t.Fatal(err)
			}
			delete(want, k)
		}
		checkIndex(t, h, want, "emptied")
	}
}

// TestHashIndexGrows: thousands of keys, sequential as an index of
// sequence numbers has them, over several doublings.
func TestHashIndexGrows(t *testing.T) {
	s := &Store{Owner: "hashindex-test"}
	defer s.Close()
	h := s.HashIndex("idx")
	want := map[uint64]uint64{}
	for k := uint64(0); k < 5000; k++ {
		if err := h.Put(k, ^k); err != nil {
			t.Fatal(err)
		}
		want[k] = ^k
	}
	checkIndex(t, h, want, "after 5,000 puts")
	if h.slots != 16384 {
		t.Fatalf("%d slots for 5,000 keys, want 16384 (at most half full)", h.slots)
	}
	if err := h.Put(17, 1); err != nil { // an overwrite neither grows nor counts
		t.Fatal(err)
	}
	want[17] = 1
	checkIndex(t, h, want, "after an overwrite")
}

// TestHashIndexClosedStoreIsAnError: with its store closed, the index
// answers every call with an error, never "absent", for a key it holds and
// one it never held alike.
func TestHashIndexClosedStoreIsAnError(t *testing.T) {
	s := &Store{Owner: "hashindex-test"}
	h := s.HashIndex("idx")
	for _, k := range []uint64{0, 1, 2} {
		if err := h.Put(k, k+1); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, k := range []uint64{0, 1, 99} {
		if v, ok, err := h.Get(k); !errors.Is(err, ErrClosed) {
			t.Fatalf("Get(%d) after Close = %d, %v, %v; want ErrClosed", k, v, ok, err)
		}
		if err := h.Put(k, 5); !errors.Is(err, ErrClosed) {
			t.Fatalf("Put(%d) after Close: %v, want ErrClosed", k, err)
		}
		if added, err := h.Add(k, 5); added || !errors.Is(err, ErrClosed) {
			t.Fatalf("Add(%d) after Close: %v, %v; want ErrClosed", k, added, err)
		}
		if err := h.Delete(k); !errors.Is(err, ErrClosed) {
			t.Fatalf("Delete(%d) after Close: %v, want ErrClosed", k, err)
		}
	}
	late := s.HashIndex("late")
	if _, ok, err := late.Get(3); !errors.Is(err, ErrClosed) {
		t.Fatalf("Get on an index a closed store made: %v, %v; want ErrClosed", ok, err)
	}
}
