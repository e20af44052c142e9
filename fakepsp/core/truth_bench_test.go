package core

import (
	"strconv"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
)

// What a soak's judge pays each round to read its ground truth back from
// disk: Charges() over 10,000 ops (a tenth of them refunds).
func BenchmarkOpsFromDisk(b *testing.B) {
	g := NewGroundTruth(nil, nil)
	const n = 10000
	for i := range n {
		kind := history.OpCharge
		if i%10 == 9 {
			kind = history.OpRefund
		}
		id := strconv.Itoa(i)
		g.Add(EffectOp(kind, "key-"+id, 1000, map[string]string{"intent": "/pay:phone-1:pay_" + id, "payment_id": "pay_" + id}))
	}
	b.ResetTimer()
	for b.Loop() {
		if got := len(g.Ops(history.OpCharge)); got != n*9/10 {
			b.Fatalf("%d charges, want %d", got, n*9/10)
		}
	}
	if err := g.ReadErr(); err != nil {
		b.Fatal(err)
	}
}
