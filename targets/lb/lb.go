// Package lb is the reference stack's load balancer. It stamps each request's
// arrival time in a header it sets itself (stripping any copy a client sent),
// then holds it per server while the server is held or busy, so a request can
// wait after its stamp, which is what the server's deadline is measured
// against (docs/SCENARIOS.md#B1).
package lb

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/targets/api"
	"github.com/idemcheck/idemcheck/targets/storytime"
	"github.com/idemcheck/idemcheck/targets/tier"
)

func init() { tier.Register("lb", Main) }

type backend struct {
	url string
	// slots bounds the dispatches in flight: a request takes one before it
	// is forwarded and waits, in arrival order, while all are taken.
	slots chan struct{}
	// gate is closed while the queue flows; a hold replaces it with an open
	// channel the waiting requests block on.
	mu     sync.Mutex
	gate   chan struct{}
	queued atomic.Int64 // requests stamped and waiting (not yet dispatched)
	sent   atomic.Int64
}

// LB is the balancer.
type LB struct {
	clock    *storytime.Clock
	backends []*backend
	hc       *http.Client
	next     atomic.Uint64
	pin      atomic.Int64 // -1 round robin, else a backend index
}

// New returns an LB over backends with workers concurrent dispatches each.
func New(clock *storytime.Clock, urls []string, workers int) *LB {
	l := &LB{clock: clock, hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers, IdleConnTimeout: 30 * time.Second}}}
	l.pin.Store(-1)
	for _, u := range urls {
		l.backends = append(l.backends, &backend{url: strings.TrimRight(u, "/"), slots: make(chan struct{}, workers), gate: closedChan()})
	}
	return l
}

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// admit blocks until b's gate is open and a dispatch slot is free. The
// request's own goroutine forwards it: a hand-off to a dispatcher goroutine
// would add a wake-up to every request's latency.
func (b *backend) admit() {
	for {
		b.mu.Lock()
		g := b.gate
		b.mu.Unlock()
		<-g
		b.slots <- struct{}{}
		b.mu.Lock()
		open := b.gate == g
		b.mu.Unlock()
		if open {
			return
		}
		<-b.slots // held while this request took its slot: wait again
	}
}

// ServeHTTP stamps, waits for the backend's gate and a slot, and forwards.
func (l *LB) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	stamp := l.clock.Now().UnixNano()
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, "lb: read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	r.Header.Del(api.ArrivalHeader)
	r.Header.Set(api.ArrivalHeader, strconv.FormatInt(stamp, 10))
	i := int(l.pin.Load())
	if i < 0 || i >= len(l.backends) {
		i = int(l.next.Add(1)-1) % len(l.backends)
	}
	b := l.backends[i]
	b.queued.Add(1)
	b.admit()
	b.queued.Add(-1)
	defer func() { <-b.slots }()
	l.forward(b, w, r, body)
}

func (l *LB) forward(b *backend, w http.ResponseWriter, r *http.Request, body []byte) {
	// The backend's work must not end because the phone gave up: an LB does
	// not cancel a slow request, the server's own deadline stops it.
	ctx := context.WithoutCancel(r.Context())
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, r.Method, b.url+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, "lb: "+err.Error(), http.StatusBadGateway)
		return
	}
	req.GetBody = nil // never replayed by net/http (docs/PITFALLS.md#net-http)
	// The phone's request is ours until ServeHTTP returns, so its header,
	// already stamped, goes on without a copy.
	req.Header = r.Header
	b.sent.Add(1)
	resp, err := l.hc.Do(req)
	if err != nil {
		http.Error(w, "lb: backend: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// Hold stops dispatch from backend i's queue; Release lets it flow.
func (l *LB) Hold(i int) {
	b := l.backends[i]
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-b.gate:
		b.gate = make(chan struct{})
	default:
	}
}

// Release reopens backend i's queue.
func (l *LB) Release(i int) {
	b := l.backends[i]
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-b.gate:
	default:
		close(b.gate)
	}
}

// Stats per backend.
type Stats struct {
	Backend string `json:"backend"`
	Queued  int64  `json:"queued"`
	Sent    int64  `json:"sent"`
	Held    bool   `json:"held"`
}

// Snapshot returns the backends' counters.
func (l *LB) Snapshot() []Stats {
	out := make([]Stats, len(l.backends))
	for i, b := range l.backends {
		b.mu.Lock()
		held := false
		select {
		case <-b.gate:
		default:
			held = true
		}
		b.mu.Unlock()
		out[i] = Stats{Backend: b.url, Queued: b.queued.Load(), Sent: b.sent.Load(), Held: held}
	}
	return out
}

// AdminHandler serves: PUT/DELETE /hold?backend=i, PUT /route?pin=i or
// ?pin=rr[&next=i] (round robin, starting at i), GET /lb.
func (l *LB) AdminHandler() map[string]http.Handler {
	idx := func(w http.ResponseWriter, s string) (int, bool) {
		i, err := strconv.Atoi(s)
		if err != nil || i < 0 || i >= len(l.backends) {
			http.Error(w, fmt.Sprintf("lb: backend %q: want 0..%d", s, len(l.backends)-1), http.StatusBadRequest)
			return 0, false
		}
		return i, true
	}
	return map[string]http.Handler{
		"/hold": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			i, ok := idx(w, r.URL.Query().Get("backend"))
			if !ok {
				return
			}
			switch r.Method {
			case http.MethodPut:
				l.Hold(i)
			case http.MethodDelete:
				l.Release(i)
			default:
				http.Error(w, "lb: PUT or DELETE", http.StatusMethodNotAllowed)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		}),
		"/route": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p := r.URL.Query().Get("pin")
			if p == "rr" {
				if n := r.URL.Query().Get("next"); n != "" {
					i, ok := idx(w, n)
					if !ok {
						return
					}
					l.next.Store(uint64(i))
				}
				l.pin.Store(-1)
			} else {
				i, ok := idx(w, p)
				if !ok {
					return
				}
				l.pin.Store(int64(i))
			}
			w.WriteHeader(http.StatusNoContent)
		}),
		"/lb": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(l.Snapshot())
		}),
	}
}

// Main runs the LB process.
func Main(ctx context.Context, args []string) error {
	f := tier.NewFlags("lb")
	f.Listen()
	backends := f.String("backends", "", "comma-separated API server URLs")
	workers := f.Int("workers", 64, "concurrent dispatches per backend")
	f.Require("backends")
	if err := f.Parse(args); err != nil {
		return err
	}
	clock := &storytime.Clock{}
	l := New(clock, strings.Split(*backends, ","), *workers)
	pub, err := f.Serve(ctx, l)
	if err != nil {
		return err
	}
	if _, err := f.Publish(ctx, clock, l.AdminHandler(), map[string]string{"http": pub}); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}
