package scenario

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// TestAbsorbedOrdersReadBackAsKeptInMemory: a seeded mix of sends (order
// ids repeated across absorbs, other amounts under a used order, several
// intents), judgings (of this span's orders, of absorbed ones, of unknown
// ones) and absorbs gives, read back from disk, exactly the orders and
// records of an Env that kept them all in memory.
func TestAbsorbedOrdersReadBackAsKeptInMemory(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 54))
		disk, mem := &Env{}, &Env{}
		absorbs := 0
		for step := range 2000 {
			switch k := rng.IntN(100); {
			case k < 70:
				// A few hundred ids, so some come back in later spans.
				o := fmt.Sprintf("ord-%03d", rng.IntN(300))
				amount := int64(100 + rng.IntN(3))
				intent := fmt.Sprintf("p:u1:k%d", rng.IntN(500))
				if rng.IntN(10) == 0 {
					intent = ""
				}
				sentAs(disk, o, amount, intent)
				sentAs(mem, o, amount, intent)
			case k < 95:
				o := fmt.Sprintf("ord-%03d", rng.IntN(320))
				ex, ch, le := rng.IntN(3), rng.IntN(3), rng.IntN(3)-1
				disk.Judged(o, ex, ch, le)
				mem.Judged(o, ex, ch, le)
			default:
				disk.forgetIntents()
				disk.absorbOrders()
				mem.forgetIntents()
				absorbs++
			}
			if step%97 != 0 && step != 1999 {
				continue
			}
			if got, want := disk.Orders(), mem.Orders(); !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d step %d (%d absorbs): orders\n%+v\nwant\n%+v", seed, step, absorbs, got, want)
			}
			got, err := disk.trackedCopy()
			want, _ := mem.trackedCopy()
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d step %d: records %v\n%+v\nwant\n%+v", seed, step, err, got, want)
			}
		}
		if disk.orders.done == nil || disk.orders.done.disk.Size() == 0 {
			t.Fatalf("seed %d: no absorbed order went to disk", seed)
		}
		if err := takeReadError(disk); err != nil {
			t.Fatalf("seed %d: read error %v", seed, err)
		}
	}
}

// TestAbsorbKeepsOnlyTheSpanInMemory: after an absorb the index and the
// records are empty; the orders are on disk.
func TestAbsorbKeepsOnlyTheSpanInMemory(t *testing.T) {
	e := &Env{}
	for i := range 3 * spill.ChunkLen {
		sentAs(e, fmt.Sprintf("ord-%03d", i), int64(i), fmt.Sprintf("p:u1:k%d", i))
	}
	e.absorbOrders()
	if e.orders.at != nil || e.orders.list != nil || e.orders.alt != nil {
		t.Fatalf("after absorb: %d indexed, %d records in memory, want none", len(e.orders.at), len(e.orders.list))
	}
	if n := len(e.Orders()); n != 3*spill.ChunkLen {
		t.Fatalf("%d orders read back, want %d", n, 3*spill.ChunkLen)
	}
}

// TestUnreadableOrdersAreAReadError: absorbed orders that cannot be read
// back are the check's read error (it is then Errored), the attribution
// made without them is not cached, and the recount is Errored, not a pass
// over fewer orders.
func TestUnreadableOrdersAreAReadError(t *testing.T) {
	fx := &growingEffects{}
	e := &Env{Cfg: &config.Config{}, Effects: fx}
	for i := range spill.ChunkLen + 1 {
		o := fmt.Sprintf("ord-%03d", i)
		sentAs(e, o, int64(1000+i), fmt.Sprintf("p:u1:k%d", i))
		fx.add(charge(fmt.Sprintf("k%d", i), int64(1000+i), map[string]string{"order": o}, fmt.Sprintf("ch_%d", i)))
		e.Judged(o, 1, 1, -1)
	}
	e.absorbOrders()
	if err := e.orders.done.disk.Close(); err != nil {
		t.Fatal(err)
	}
	a, ok := e.attribute(context.Background())
	if !ok || len(a.Unattributed) != spill.ChunkLen {
		t.Fatalf("attribution ok %v with %d unattributed, want the %d orders of the lost chunk's charges", ok, len(a.Unattributed), spill.ChunkLen)
	}
	if e.attr.ok {
		t.Fatal("an attribution made without the lost orders was cached")
	}
	err := takeReadError(e)
	if !errors.Is(err, spill.ErrClosed) || !strings.Contains(err.Error(), "the run's orders") {
		t.Fatalf("read error %v, want the orders' closed store", err)
	}
	if err := takeReadError(e); err != nil {
		t.Fatalf("read error %v on the second ask, want it forgotten", err)
	}
	rs := Recount(context.Background(), e, nil)
	if r := rs[len(rs)-1]; r.Verdict != Errored || !strings.Contains(r.Why, "the run's orders") || len(r.Findings) != 0 {
		t.Fatalf("recount %s (%s) with %d findings, want Errored naming the orders", r.Verdict, r.Why, len(r.Findings))
	}
}

// TestOrdersReadDuringAbsorbs: a reader racing sends and absorbs sees
// every order sent before its read exactly once, in first-sent order (an
// absorb between its look at memory and at the disk is merged, not
// doubled). Run it under -race too.
func TestOrdersReadDuringAbsorbs(t *testing.T) {
	e := &Env{}
	const n = 20 * spill.ChunkLen
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range n {
			sentAs(e, fmt.Sprintf("ord-%04d", i), int64(i), fmt.Sprintf("p:u1:k%d", i))
			if i%37 == 36 {
				e.absorbOrders()
			}
		}
	}()
	check := func(got []Order) {
		for i, o := range got {
			if o.ID != fmt.Sprintf("ord-%04d", i) || o.Amount != int64(i) {
				t.Fatalf("order %d of %d read is %+v", i, len(got), o)
			}
		}
	}
	reads := 0
	for running := true; running; reads++ {
		select {
		case <-done:
			running = false
		default:
		}
		check(e.Orders())
	}
	if got := e.Orders(); len(got) != n {
		t.Fatalf("%d orders at the end, want %d", len(got), n)
	}
	if err := takeReadError(e); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d reads during the sends", reads)
}

// TestCloseLetsTheOrdersFileGo: Close (the run's last undo) closes the
// absorbed orders' store, so a campaign's process keeps no descriptor per
// run; an Env that absorbed nothing closes as a no-op.
func TestCloseLetsTheOrdersFileGo(t *testing.T) {
	if err := (&Env{}).Close(); err != nil {
		t.Fatalf("Close of an Env with nothing absorbed: %v", err)
	}
	e := &Env{}
	for i := range spill.ChunkLen + 1 {
		sentAs(e, fmt.Sprintf("ord-%03d", i), int64(i), fmt.Sprintf("p:u1:k%d", i))
	}
	e.absorbOrders()
	if e.orders.done.disk.Path() == "" {
		t.Fatal("the absorb wrote no chunk to disk")
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.orders.done.disk.Get(spill.Ref{}); err != nil {
		t.Fatalf("the empty blob after Close: %v", err)
	}
	if _, err := e.orders.done.disk.Put([]byte("x")); !errors.Is(err, spill.ErrClosed) {
		t.Fatalf("Put after Close: %v, want ErrClosed", err)
	}
}
