// Package pspfront is a recording reverse proxy idemcheck puts between the
// target and fakepsp. It sees every request the target makes to its PSP, so
// charges can be attributed by what idemcheck put in the payment request
// (the order id in metadata or a description), and it applies faults that
// follow one PSP key across every retry a client library makes on its own:
// fakepsp's faults fire on the first execution only, and a replay of the
// same key (stripe-go retries with the key it sent) would hear the answer.
package pspfront

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// Exchange is one request the target sent to its PSP and the PSP's answer.
type Exchange struct {
	Method string
	Path   string
	Key    string // the Idempotency-Key header
	// Body is the request body, form-decoded when it is a form ("k=v" lines).
	Body     string
	Status   int
	RespBody string
	// Lost says the target never received this answer (a front fault).
	Lost bool
}

// Front proxies to the upstream PSP and records every exchange.
type Front struct {
	up  string
	ln  net.Listener
	srv *http.Server
	hc  *http.Client

	mu sync.Mutex
	// log is only ever appended to: the judge's attribution cache takes an
	// unchanged Len for an unchanged log (log.go).
	log *spill.Log[logged]
	// rules are the armed rules, the ones each request is matched against;
	// a rule leaves when stopped, and a Once rule when it fired (spent keeps
	// it until stopped: it may hold a request or an answer Close releases).
	// A soak arms rules for a run's every faulted intent.
	rules []*Rule
	spent map[*Rule]struct{}
	// disk holds the log's chunks; readErr is the first failure to read
	// them back, closed says Close dropped them.
	disk    spill.Store
	readErr spill.FirstErr
	closed  bool
}

// Start listens on listen ("" = a free loopback port) and forwards to upstream (a base URL).
func Start(upstream, listen string) (*Front, error) {
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("pspfront: listen %s: %w", listen, err)
	}
	f := &Front{up: strings.TrimRight(upstream, "/"), ln: ln,
		hc: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}}
	f.disk.Owner = "pspfront"
	f.log = spill.NewLog[logged](&f.disk)
	f.srv = &http.Server{Handler: http.HandlerFunc(f.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = f.srv.Serve(ln) }()
	return f, nil
}

// URL is where the target must send its PSP calls.
func (f *Front) URL() string { return "http://" + f.ln.Addr().String() }

// Addr is the listening host:port.
func (f *Front) Addr() string { return f.ln.Addr().String() }

// Close stops the proxy, releases every held answer and drops the
// exchanges' bodies kept on disk.
func (f *Front) Close() error {
	f.mu.Lock()
	for _, r := range slices.Clone(f.rules) {
		r.stopLocked()
	}
	for r := range f.spent {
		r.stopLocked()
	}
	f.closed = true
	f.mu.Unlock()
	err := f.srv.Close()
	if derr := f.disk.Close(); err == nil {
		err = derr
	}
	return err
}

// Action is what a rule does to the requests it matches.
type Action int

// Actions.
const (
	// Gate holds matching requests before they reach the PSP until Release.
	Gate Action = iota
	// Lose forwards the request (the PSP executes it) and closes the
	// target's connection without an answer.
	Lose
	// Hold forwards the request and keeps the answer until the target gives
	// up (its own PSP timeout) or the rule is stopped.
	Hold
)

// Rule matches requests whose path or body carries Needle (an order id, a
// PSP payment id) or whose amount is Amount; once one matched, every request
// with the same Idempotency-Key matches too (a client library's own retries).
type Rule struct {
	Needle string
	Amount int64
	Action Action

	f     *Front
	keys  map[string]bool
	fired int
	// held and maxHeld count a Gate's requests waiting at once: two open
	// at the same moment are two executions (one client waits for its own
	// call or gives it up before it retries). Only requests that arrive
	// within window of the first count: a later one may be a
	// takeover after the service's lease, which the gate's own hold caused.
	held, maxHeld int
	// once: the rule acts on its first matching request only; later ones,
	// those with its key included, pass untouched.
	once bool
	// answersHeld counts the Hold's requests whose PSP answer came and was
	// kept from the target (ever, not at once): the PSP provably executed them.
	answersHeld int
	firstAt     time.Time
	window      time.Duration
	stopped     bool
	done        chan struct{}
	changed     chan struct{}
}

// Add arms a rule until Stop.
func (f *Front) Add(needle string, amount int64, a Action) *Rule {
	r := &Rule{Needle: needle, Amount: amount, Action: a, f: f, keys: map[string]bool{},
		done: make(chan struct{}), changed: make(chan struct{})}
	f.mu.Lock()
	f.rules = append(f.rules, r)
	f.mu.Unlock()
	return r
}

// Fired is how many requests the rule acted on.
func (r *Rule) Fired() int {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	return r.fired
}

// Once makes the rule act on its first matching request only: a second
// copy of the same payment (even under the same PSP key) passes to the PSP
// while the first is held, so the order the PSP sees is the order idemcheck
// made, not the order a race picked.
func (r *Rule) Once() *Rule {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	r.once = true
	return r
}

// CountTogetherWithin makes MaxHeld count only the requests that arrive
// within d of the rule's first.
func (r *Rule) CountTogetherWithin(d time.Duration) {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	r.window = d
}

// MaxHeld is the most requests a Gate held at one moment.
func (r *Rule) MaxHeld() int {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	return r.maxHeld
}

// Keys are the PSP keys the rule followed.
func (r *Rule) Keys() []string {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	var out []string
	for k := range r.keys {
		out = append(out, k)
	}
	return out
}

// WaitFired waits until the rule acted on n requests or ctx ends.
func (r *Rule) WaitFired(ctx context.Context, n int) error {
	if got, err := r.wait(ctx, n, func() int { return r.fired }); err != nil {
		return fmt.Errorf("pspfront: the target sent no matching PSP request (%d of %d): %w", got, n, err)
	}
	return nil
}

// WaitAnswersHeld waits until a Hold has kept n answers the PSP gave (the PSP
// executed those requests) or ctx ends.
func (r *Rule) WaitAnswersHeld(ctx context.Context, n int) error {
	if got, err := r.wait(ctx, n, func() int { return r.answersHeld }); err != nil {
		return fmt.Errorf("pspfront: the PSP answered %d of %d held requests: %w", got, n, err)
	}
	return nil
}

func (r *Rule) wait(ctx context.Context, n int, count func() int) (int, error) {
	for {
		r.f.mu.Lock()
		got, ch := count(), r.changed
		r.f.mu.Unlock()
		if got >= n {
			return got, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return got, ctx.Err()
		}
	}
}

func (r *Rule) changedLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// Stop disarms the rule and lets whatever it holds go.
func (r *Rule) Stop() {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	r.stopLocked()
}

func (r *Rule) stopLocked() {
	if !r.stopped {
		r.stopped = true
		close(r.done)
		r.f.disarmLocked(r)
	}
	delete(r.f.spent, r)
}

// disarmLocked takes r out of the rules requests are matched against.
func (f *Front) disarmLocked(r *Rule) {
	if i := slices.Index(f.rules, r); i >= 0 {
		f.rules = slices.Delete(f.rules, i, i+1)
	}
}

// match reports whether the rule acts on a request, counting it.
func (f *Front) match(key, body string, amount int64) *Rule {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.rules {
		if r.stopped || (r.once && r.fired > 0) {
			continue
		}
		hit := (key != "" && r.keys[key]) || (r.Needle != "" && strings.Contains(body, r.Needle)) ||
			(r.Amount != 0 && amount == r.Amount)
		if !hit {
			continue
		}
		if key != "" {
			r.keys[key] = true
		}
		r.fired++
		r.changedLocked()
		if r.once {
			f.disarmLocked(r)
			if f.spent == nil {
				f.spent = map[*Rule]struct{}{}
			}
			f.spent[r] = struct{}{}
		}
		return r
	}
	return nil
}

func (f *Front) serve(w http.ResponseWriter, req *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	if err != nil {
		http.Error(w, "pspfront: reading the request: "+err.Error(), http.StatusBadGateway)
		return
	}
	body, amount := decode(req.Header.Get("Content-Type"), raw)
	x := Exchange{Method: req.Method, Path: req.URL.Path, Key: req.Header.Get("Idempotency-Key"), Body: body}
	var rule *Rule
	if req.Method == http.MethodPost {
		// The path is searched too: a capture names its payment only there.
		rule = f.match(x.Key, x.Path+"\n"+body, amount)
	}
	if rule != nil && rule.Action == Gate {
		f.mu.Lock()
		if rule.firstAt.IsZero() {
			rule.firstAt = time.Now()
		}
		counted := rule.window == 0 || time.Since(rule.firstAt) <= rule.window
		if counted {
			rule.held++
			rule.maxHeld = max(rule.maxHeld, rule.held)
		}
		f.mu.Unlock()
		select {
		case <-rule.done:
		case <-req.Context().Done():
		}
		if counted {
			f.mu.Lock()
			rule.held--
			f.mu.Unlock()
		}
	}
	out, err := http.NewRequestWithContext(context.WithoutCancel(req.Context()), req.Method, f.up+req.URL.RequestURI(), bytes.NewReader(raw))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = req.Header.Clone()
	resp, err := f.hc.Do(out)
	if err != nil {
		x.Status = 0
		x.RespBody = "pspfront: " + err.Error()
		f.keep(x)
		hijackClose(w)
		return
	}
	rb, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	x.Status, x.RespBody = resp.StatusCode, string(rb)
	if rule != nil && rule.Action == Hold {
		f.mu.Lock()
		rule.answersHeld++
		rule.changedLocked()
		f.mu.Unlock()
		select {
		case <-rule.done:
		case <-req.Context().Done():
			x.Lost = true
		}
	}
	if rule != nil && rule.Action == Lose {
		x.Lost = true
	}
	f.keep(x)
	if x.Lost {
		hijackClose(w)
		return
	}
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(rb)
}

// hijackClose drops the target's connection without an answer: it sees EOF.
func hijackClose(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
		}
		return
	}
	panic(http.ErrAbortHandler)
}
