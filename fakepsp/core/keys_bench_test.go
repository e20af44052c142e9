package core

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// BenchmarkKeyStoreClaim is the time a keyed request spends in the store
// with its saved answers on disk: "fresh" claims and saves a new key (the
// index looked up and then written), "replay" claims a key saved among
// 10,000 others (the index and the record read back). It prices the index's
// place, memory or disk, per request.
func BenchmarkKeyStoreClaim(b *testing.B) {
	body := []byte(`{"id":"pi_3QxYz","object":"payment_intent","amount":1000,"status":"succeeded"}`)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	keyed := func(st *spill.Store, store *KeyStore, i int) Keyed {
		return Keyed{Rules: KeyRules{MaxLen: 255}, Window: 24 * time.Hour, Store: store, Lock: &sync.Mutex{}, Spill: st,
			Now: func() time.Time { return t0.Add(time.Duration(i) * time.Millisecond) }, Key: "create-/pay:phone-1:pay_" + strconv.Itoa(i),
			Scope: "POST /v1/payment_intents", Fingerprint: "amount=1000&currency=usd&n=" + strconv.Itoa(i)}
	}
	run := func() (int, []byte, string, bool) { return 200, body, "req_1", true }
	b.Run("fresh", func(b *testing.B) {
		st := &spill.Store{Owner: "keys-bench"}
		defer st.Close()
		store := NewKeyStore()
		i := 0
		for b.Loop() {
			if out := keyed(st, store, i).Do(run); out.Status != 200 {
				b.Fatalf("key %d: %+v, want a fresh 200", i, out)
			}
			i++
		}
	})
	b.Run("replay", func(b *testing.B) {
		st := &spill.Store{Owner: "keys-bench"}
		defer st.Close()
		store := NewKeyStore()
		const saved = 10000
		for i := range saved {
			keyed(st, store, i).Do(run)
		}
		i := 0
		for b.Loop() {
			if out := keyed(st, store, i%saved).Do(run); out.Replay == nil {
				b.Fatalf("key %d: %+v, want a replay", i%saved, out)
			}
			i++
		}
	})
}
