package checker

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
)

// BenchmarkCheck times Check on generated legal histories: about 5 ops per
// intent, 8 concurrent clients, 1% unknown outcomes, seed 1.
func BenchmarkCheck(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("ops=%d", n), func(b *testing.B) {
			h, initial := history.Generate(history.GenOptions{Seed: 1, Ops: n, Clients: 8, UnknownRate: 0.01})
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res := Check(h, CheckOptions{InitialBalances: initial})
				if !res.OK() || !res.Decided() {
					b.Fatalf("generated history not legal:\n%s", res.Text())
				}
			}
			b.ReportMetric(float64(len(h))*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}

// BenchmarkReadJSONL times the strict reader on a generated 100k-op file.
func BenchmarkReadJSONL(b *testing.B) {
	h, _ := history.Generate(history.GenOptions{Seed: 1, Ops: 100_000})
	var buf bytes.Buffer
	if err := history.WriteJSONL(&buf, h); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := history.ReadJSONL(bytes.NewReader(buf.Bytes())); err != nil {
			b.Fatal(err)
		}
	}
}
