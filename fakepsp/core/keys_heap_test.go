package core

import (
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/internal/liveheap"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// heapKeys is how many keys the heap measures claim and save: enough that
// the index's growth steps average out.
const heapKeys = 10000

// BenchmarkKeyStoreHeapPerKey measures what a KeyStore keeps in memory per
// saved key, its index included: a soak keeps every key for Stripe's 24 h,
// two per PaymentIntent, so this is paid per key for the whole run.
func BenchmarkKeyStoreHeapPerKey(b *testing.B) {
	for b.Loop() {
		heap, disk := measureKeyStoreHeap(b, heapKeys)
		b.ReportMetric(heap, "heapB/key")
		b.ReportMetric(disk, "diskB/key")
	}
}

// TestKeyStoreStaysCompact keeps the per-key figure from growing back
// unnoticed. BenchmarkKeyStoreHeapPerKey measures 0.3 B (the index's fixed
// cost over 10,000 keys, now that it is on disk), and a busy machine up to
// 0.9 (the runtime's own few KB moving between two collections): the
// bound, 8 B, is far above that noise and far below the 30 B a key cost
// while its hash and record's place stayed in a map (and the 140 B while
// its text and record did).
func TestKeyStoreStaysCompact(t *testing.T) {
	if testing.Short() {
		t.Skip("saves 10,000 keys")
	}
	const bound = 8.0
	if heap, _ := measureKeyStoreHeap(t, heapKeys); heap > bound {
		t.Fatalf("a KeyStore keeps %.2f B of heap per saved key, want at most %.1f", heap, bound)
	}
}

// measureKeyStoreHeap claims and saves n keys, shaped as a service sends
// them, in a new store on disk, and returns the live heap it grew and the
// bytes it wrote, per key.
func measureKeyStoreHeap(tb testing.TB, n int) (heap, disk float64) {
	st := &spill.Store{Owner: "keys-heap"}
	defer st.Close()
	store := NewKeyStore()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	body := []byte(`{"id":"pi_3QxYz","object":"payment_intent","amount":1000,"status":"succeeded"}`)
	before := liveheap.Bytes()
	for i := range n {
		// Built here, so that whatever the store keeps of a key counts.
		key := "create-/pay:phone-1:pay_" + strconv.Itoa(i)
		k := Keyed{Rules: KeyRules{MaxLen: 255}, Window: 24 * time.Hour, Store: store, Lock: &sync.Mutex{}, Spill: st,
			Now: func() time.Time { return t0.Add(time.Duration(i) * time.Millisecond) }, Key: key,
			Scope: "POST /v1/payment_intents", Fingerprint: "amount=1000&currency=usd&n=" + strconv.Itoa(i)}
		out := k.Do(func() (int, []byte, string, bool) { return 200, body, "req_" + strconv.Itoa(i), true })
		if out.Status != 200 {
			tb.Fatalf("key %d: %+v, want a fresh 200", i, out)
		}
	}
	after := liveheap.Bytes()
	heap = (float64(after) - float64(before)) / float64(n)
	tb.Logf("live heap %d -> %d bytes over %d saved keys: %.1f bytes per key", before, after, n, heap)
	runtime.KeepAlive(store)
	return heap, float64(st.Size()) / float64(n)
}
