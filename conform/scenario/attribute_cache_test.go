package scenario

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/pspfront"
)

// growingEffects is a PSP log a test appends to, as fakepsp's grows.
type growingEffects struct {
	mu  sync.Mutex
	ops []history.Op
}

func (g *growingEffects) add(c history.Op) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ops = append(g.ops, c)
}

func (g *growingEffects) Charges(context.Context) ([]history.Op, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]history.Op{}, g.ops...), nil
}

// ChargeCount makes it a ChargeLog, as fakepsp's effects are.
func (g *growingEffects) ChargeCount(context.Context) (int, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.ops), true
}

// uncounted hides ChargeCount, as a PSP reached by URL does: the cache
// then knows a new charge by reading them.
type uncounted struct{ g *growingEffects }

func (u uncounted) Charges(ctx context.Context) ([]history.Op, error) { return u.g.Charges(ctx) }
func (u uncounted) Count(ctx context.Context) (int64, error)          { return u.g.Count(ctx) }

func (g *growingEffects) Count(context.Context) (int64, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return int64(len(g.ops)), nil
}

// frontEnv is an Env whose PSP requests cross a real front to a stub PSP.
func frontEnv(t *testing.T, counted bool) (*Env, *growingEffects, func(key, body string)) {
	t.Helper()
	psp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"id":"pi_1"}`)) }))
	t.Cleanup(psp.Close)
	f, err := pspfront.Start(psp.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	fx := &growingEffects{}
	send := func(key, body string) {
		t.Helper()
		sendLogged(t, f, "POST", "/v1/payment_intents", key, body)
	}
	if !counted {
		return &Env{Effects: uncounted{fx}, Front: f}, fx, send
	}
	return &Env{Effects: fx, Front: f}, fx, send
}

func sent(e *Env, order string, amount int64) {
	e.track("t", Intent{Meaning: driver.Meaning{OrderID: order, Amount: amount}}, "")
}

// TestAttributionCachedUntilAnInputChanges: an unchanged run gets the same
// Attribution back (not remade); a new charge, a new exchange, a new order
// and a new other amount each change the answer; with charges counted
// (fakepsp's) or read (a PSP reached by URL).
func TestAttributionCachedUntilAnInputChanges(t *testing.T) {
	for _, counted := range []bool{true, false} {
		t.Run(fmt.Sprintf("counted=%v", counted), func(t *testing.T) { cachedUntilAnInputChanges(t, counted) })
	}
}

func cachedUntilAnInputChanges(t *testing.T, counted bool) {
	e, fx, send := frontEnv(t, counted)
	ctx := context.Background()
	sent(e, "ord-a", 10)
	sent(e, "ord-b", 20)
	fx.add(charge("k1", 10, map[string]string{"order": "ord-a"}, "ch_1"))
	first, _ := e.attribute(ctx)
	again, _ := e.attribute(ctx)
	if reflect.ValueOf(first.By).Pointer() != reflect.ValueOf(again.By).Pointer() {
		t.Fatalf("nothing changed, yet the attribution was remade")
	}
	sent(e, "ord-a", 10) // the same order and amount again: nothing new
	if a, _ := e.attribute(ctx); reflect.ValueOf(a.By).Pointer() != reflect.ValueOf(first.By).Pointer() {
		t.Fatalf("a repeat of a known order and amount remade the attribution")
	}

	step := func(what string, change func(), check func(a Attribution) bool) {
		t.Helper()
		change()
		a, _ := e.attribute(ctx)
		if !check(a) {
			t.Fatalf("after %s: By %v, unattributed %d: the cached answer was kept", what, a.By, len(a.Unattributed))
		}
		if !reflect.DeepEqual(a, Attribute(fx.ops, e.Front.Exchanges(), e.Orders())) {
			t.Fatalf("after %s: the cached answer differs from a fresh one", what)
		}
	}
	step("a new charge", func() { fx.add(charge("k2", 99, nil, "ch_2")) },
		func(a Attribution) bool { return len(a.Unattributed) == 1 })
	step("a new exchange naming ord-b under the charge's key", func() { send("k2", "description=ord-b") },
		func(a Attribution) bool { return len(a.By["ord-b"]) == 1 && len(a.Unattributed) == 0 })
	fx.add(charge("k3", 77, nil, "ch_3"))
	if a, _ := e.attribute(ctx); len(a.Unattributed) != 1 {
		t.Fatalf("a charge of 77 before any order sent 77: unattributed %d, want 1", len(a.Unattributed))
	}
	step("another amount for ord-a", func() { sent(e, "ord-a", 77) },
		func(a Attribution) bool { return len(a.By["ord-a"]) == 2 && len(a.Unattributed) == 0 })
	fx.add(charge("k4", 55, nil, "ch_4"))
	step("a new order", func() { sent(e, "ord-c", 55) },
		func(a Attribution) bool { return len(a.By["ord-c"]) == 1 && len(a.Unattributed) == 0 })
}

// TestChargesForHandsOutCopies: a caller changing what it got cannot change
// what the next caller gets from the cache.
func TestChargesForHandsOutCopies(t *testing.T) {
	e, fx, _ := frontEnv(t, true)
	sent(e, "ord-a", 10)
	fx.add(charge("k1", 10, map[string]string{"order": "ord-a"}, "ch_1"))
	in := Intent{Meaning: driver.Meaning{OrderID: "ord-a"}}
	got, _ := e.ChargesFor(context.Background(), in)
	got[0].Input.PSPKey = "changed"
	_ = append(got[:0], history.Op{Op: "bogus"})
	again, _ := e.ChargesFor(context.Background(), in)
	if len(again) != 1 || again[0].Input.PSPKey != "k1" || again[0].Op != history.OpCharge {
		t.Fatalf("the cached charges were changed through a caller's copy: %+v", again)
	}
}

// TestAttributionConcurrentJudges: eight judges asking while charges and
// orders arrive (run with -race) each get a fresh-enough answer: every
// charge that existed before a judge asked is in its answer.
func TestAttributionConcurrentJudges(t *testing.T) {
	e, fx, _ := frontEnv(t, true)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				id := fmt.Sprintf("ord-%d-%03d", w, i) // fixed width: no id inside another
				sent(e, id, int64(1000*w+i))
				fx.add(charge(fmt.Sprintf("k-%d-%d", w, i), 1, map[string]string{"order": id}, "ch_"+id))
				got, ok := e.ChargesFor(context.Background(), Intent{Meaning: driver.Meaning{OrderID: id}})
				if !ok || len(got) != 1 {
					t.Errorf("order %s: %d charges, want 1", id, len(got))
					return
				}
			}
		}()
	}
	wg.Wait()
}

// sendLogged sends one request through the front and fails unless the
// front logged it: a test's exchanges are then exactly the ones it sent.
func sendLogged(t *testing.T, f *pspfront.Front, method, path, key, body string) {
	t.Helper()
	n := f.Len()
	req, _ := http.NewRequest(method, f.URL()+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Idempotency-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if f.Len() != n+1 {
		t.Fatalf("the front logged %d exchanges, want %d", f.Len(), n+1)
	}
}
