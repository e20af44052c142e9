package spill

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkHashIndex prices an index on disk per call: "add" inserts new
// keys (its doublings included, as a run pays them), "get" finds one of
// 100,000 keys.
func BenchmarkHashIndex(b *testing.B) {
	b.Run("add", func(b *testing.B) {
		s := &Store{Owner: "hashindex-bench"}
		defer s.Close()
		h := s.HashIndex("idx")
		r := rand.New(rand.NewPCG(1, 2))
		for b.Loop() {
			if _, err := h.Add(r.Uint64(), 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("get", func(b *testing.B) {
		s := &Store{Owner: "hashindex-bench"}
		defer s.Close()
		h := s.HashIndex("idx")
		const n = 100000
		for k := uint64(1); k <= n; k++ {
			if err := h.Put(k*0x2545F4914F6CDD1D, k); err != nil {
				b.Fatal(err)
			}
		}
		k := uint64(0)
		for b.Loop() {
			k = k%n + 1
			if v, ok, err := h.Get(k * 0x2545F4914F6CDD1D); !ok || err != nil || v != k {
				b.Fatalf("Get(%d) = %d, %v, %v", k, v, ok, err)
			}
		}
	})
}
