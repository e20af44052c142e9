package faults

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// pausableProc is a fakeProc that can also be frozen.
type pausableProc struct {
	fakeProc
	paused atomic.Bool
}

func (p *pausableProc) Pause() error  { p.paused.Store(true); return nil }
func (p *pausableProc) Resume() error { p.paused.Store(false); return nil }

// windowRig is a fakepsp control API whose one fault reports fired, and an
// LB admin endpoint that records its routes.
type windowRig struct {
	fired  atomic.Int64
	mu     sync.Mutex
	routes []string
	psp    *httptest.Server
	lb     *httptest.Server
}

func newWindowRig(t *testing.T) *windowRig {
	w := &windowRig{}
	w.psp = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/_psp/faults" {
			rw.WriteHeader(http.StatusCreated)
		}
		_ = json.NewEncoder(rw).Encode(map[string]any{"id": "f1", "fired": w.fired.Load()})
	}))
	w.lb = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		w.routes = append(w.routes, r.Method+" "+r.URL.RequestURI())
		w.mu.Unlock()
		rw.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(w.psp.Close)
	t.Cleanup(w.lb.Close)
	return w
}

func (w *windowRig) lbRoutes() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.routes, "|")
}

// TestOwnerAtChargeFiresOnlyOnTheCharge: with no charge at fakepsp the owner
// is left alone and the window did not fire; once fakepsp executed the
// charge, the pinned owner (intent 2: api-1) is killed, the LB re-pinned to
// api-2, the webhook was down, and the window fired once.
func TestOwnerAtChargeFiresOnlyOnTheCharge(t *testing.T) {
	for _, charged := range []bool{false, true} {
		w := newWindowRig(t)
		a1, a2, res, hook := &pausableProc{}, &pausableProc{}, &pausableProc{}, &pausableProc{}
		sys := &System{PSP: w.psp.URL, Tiers: []Tier{{Kind: "api", Name: "api-1", Proc: a1}, {Kind: "api", Name: "api-2", Proc: a2},
			{Kind: "lb", Name: "lb", Admin: w.lb.URL, Proc: &fakeProc{}}, {Kind: "resolver", Name: "resolver", Proc: res}, {Kind: "webhook", Name: "webhook", Proc: hook}}}
		f := OwnerAtCharge{Tail: 10 * time.Millisecond}
		if ok, why := f.Applies(sys); !ok {
			t.Fatal(why)
		}
		if charged {
			w.fired.Store(1)
		}
		inj, err := f.Inject(context.Background(), sys, Scope{N: 2, Amount: 1234})
		if err != nil {
			t.Fatal(err)
		}
		if !res.paused.Load() || !hook.dead {
			t.Fatalf("charged %v: resolver paused %v, webhook dead %v; want the settlers away before the send", charged, res.paused.Load(), hook.dead)
		}
		if err := inj.Undo(); err != nil && charged {
			t.Fatal(err)
		}
		want := int64(0)
		if charged {
			want = 1
		}
		if inj.Fired() != want || (a1.kills == 1) != charged || a2.kills != 0 {
			t.Fatalf("charged %v: fired %d, kills api-1 %d api-2 %d", charged, inj.Fired(), a1.kills, a2.kills)
		}
		if hook.restarts != 1 || (charged && a1.restarts != 1) {
			t.Fatalf("charged %v: webhook restarts %d, api-1 restarts %d", charged, hook.restarts, a1.restarts)
		}
		// The tail thawed the resolver, restored the LB and let go: taking
		// the lock is waiting for it.
		waitUnlocked(&lbWindow)
		routes := w.lbRoutes()
		if !strings.HasPrefix(routes, "PUT /route?pin=0") || !strings.HasSuffix(routes, "PUT /route?pin=rr") || strings.Contains(routes, "pin=1") != charged {
			t.Fatalf("charged %v: LB routes %s", charged, routes)
		}
		if res.paused.Load() {
			t.Fatalf("charged %v: the resolver is still frozen after the tail", charged)
		}
	}
}

// TestPSPWindowFiresOnlyWithTheChargeAndTheWebhookDown: an unfired PSP
// fault is not a fired window, whatever was killed.
func TestPSPWindowFiresOnlyWithTheChargeAndTheWebhookDown(t *testing.T) {
	for _, charged := range []bool{false, true} {
		w := newWindowRig(t)
		hook := &fakeProc{}
		sys := &System{PSP: w.psp.URL, Tiers: []Tier{{Kind: "webhook", Name: "webhook", Proc: hook}}}
		f := Lookup("window-psp-500-saved-no-webhook")
		if charged {
			w.fired.Store(1)
		}
		inj, err := f.Inject(context.Background(), sys, Scope{N: 1, Amount: 77})
		if err != nil {
			t.Fatal(err)
		}
		if !hook.dead {
			t.Fatal("the webhook tier is up while fakepsp executes the charge")
		}
		if err := inj.Undo(); err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int64{false: 0, true: 1}[charged]; inj.Fired() != want || hook.dead || hook.restarts != 1 {
			t.Fatalf("charged %v: fired %d, webhook dead %v restarts %d", charged, inj.Fired(), hook.dead, hook.restarts)
		}
	}
}

// waitUnlocked returns once m is free: whoever held it let go.
func waitUnlocked(m *sync.Mutex) {
	m.Lock()
	defer m.Unlock()
}
