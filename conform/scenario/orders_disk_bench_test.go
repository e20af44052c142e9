package scenario

import (
	"context"
	"testing"
)

// BenchmarkAttributeCold: one attribution remade from scratch, as a
// round's judge does after Absorb dropped the cache, over soakRun's 3,000
// orders kept in memory ("memory") or absorbed to disk ("absorbed"): what
// reading the orders back costs the judge.
// go test -run XXX -bench AttributeCold ./conform/scenario/
func BenchmarkAttributeCold(b *testing.B) {
	charges, _, orders := soakRun()
	for _, absorbed := range []bool{false, true} {
		name := map[bool]string{false: "memory", true: "absorbed"}[absorbed]
		b.Run(name, func(b *testing.B) {
			e := &Env{Effects: &growingEffects{ops: charges}}
			for _, o := range orders {
				sent(e, o.ID, o.Amount)
			}
			if absorbed {
				e.absorbOrders()
			}
			ctx := context.Background()
			for b.Loop() {
				e.forgetJudged()
				if a, ok := e.attribute(ctx); !ok || len(a.By) == 0 {
					b.Fatal("no attribution")
				}
			}
			if err := takeReadError(e); err != nil {
				b.Fatal(err)
			}
		})
	}
}
