package fakepsp

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// FaultKind names a fault; the control API uses the same names.
type FaultKind string

// The fault kinds. "Charge" means the request's effect: the charge of a
// PaymentIntent create (confirm=true) or confirm, the authorization of a
// manual-capture one (op "authorize"), its capture (op "charge": the money
// moves there), a cancel (op "cancel"), or the refund of a refund create.
const (
	// LoseReply: the charge is made and saved under the key, then the
	// connection is closed without an answer (the client sees EOF).
	LoseReply FaultKind = "lose_reply"
	// HoldReply: the charge is made and saved, the answer is held until the
	// client gives up (it sees its own timeout), Release, or Close.
	HoldReply FaultKind = "hold_reply"
	// DelayBeforeCharge / DelayAfterCharge sleep Delay around the charge.
	DelayBeforeCharge FaultKind = "delay_before_charge"
	DelayAfterCharge  FaultKind = "delay_after_charge"
	// Error500BeforeCharge answers 500 without charging; Error500AfterCharge
	// charges and answers 500. Both are saved under the key, as Stripe saves
	// every result once execution has begun.
	Error500BeforeCharge FaultKind = "error_500_before_charge"
	Error500AfterCharge  FaultKind = "error_500_after_charge"
	// RateLimit answers 429 before the idempotency layer (nothing saved).
	RateLimit FaultKind = "rate_limit"
	// GateBeforeCharge stops matching requests before the charge until
	// Release: a deterministic way to keep a request executing.
	GateBeforeCharge FaultKind = "gate_before_charge"
	// SearchLag makes search see the PaymentIntents as they were Delay ago.
	SearchLag FaultKind = "search_lag"
	// WebhookDuplicates delivers each matching event Extra more times after
	// its first successful delivery.
	WebhookDuplicates FaultKind = "webhook_duplicates"
	// WebhookOutOfOrder holds each matching event back until the next event
	// for the same endpoint has been sent (or one schedule Base has passed).
	WebhookOutOfOrder FaultKind = "webhook_out_of_order"
)

var faultKinds = map[FaultKind]bool{
	LoseReply: true, HoldReply: true, DelayBeforeCharge: true, DelayAfterCharge: true,
	Error500BeforeCharge: true, Error500AfterCharge: true, RateLimit: true, GateBeforeCharge: true,
	SearchLag: true, WebhookDuplicates: true, WebhookOutOfOrder: true,
}

// Match selects the requests a fault fires on. Empty fields match anything.
type Match struct {
	PSPKey string `json:"psp_key,omitempty"` // the Idempotency-Key
	Amount int64  `json:"amount,omitempty"`  // the PaymentIntent's or refund's amount
	Op     string `json:"op,omitempty"`      // "charge", "refund", "authorize" or "cancel"
	// Times > 0: fire on the next Times matching requests only; 0: on all.
	Times int `json:"times,omitempty"`
}

// FaultSpec describes a fault to add.
type FaultSpec struct {
	Kind  FaultKind
	Match Match
	Delay time.Duration // delays and SearchLag
	Extra int           // WebhookDuplicates: extra deliveries per event
}

// target is what a request (or webhook event) offers to Match.
type target struct {
	key    string
	amount int64
	op     string
}

// Fault is one armed fault. Fired tells a test whether it took effect.
type Fault struct {
	id   string
	spec FaultSpec

	mu      sync.Mutex
	left    int
	removed bool
	changed chan struct{} // closed and replaced whenever fired changes

	err       error // set on an inert fault from an invalid spec
	fired     atomic.Int64
	release   chan struct{}
	releaseMu sync.Once
}

// ID names the fault in the control API.
func (f *Fault) ID() string { return f.id }

// Err is non-nil when the fault was armed with an invalid spec and is inert.
func (f *Fault) Err() error { return f.err }

// Spec is what the fault was armed with.
func (f *Fault) Spec() FaultSpec { return f.spec }

// Fired is how many times the fault took effect.
func (f *Fault) Fired() int64 { return f.fired.Load() }

// WaitFired waits until the fault has fired at least n times.
func (f *Fault) WaitFired(ctx context.Context, n int64) error {
	for {
		f.mu.Lock()
		ch := f.changed
		f.mu.Unlock()
		if f.Fired() >= n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("fakepsp: fault %s (%s) fired %d times, waiting for %d: %w", f.id, f.spec.Kind, f.Fired(), n, ctx.Err())
		}
	}
}

// Release opens a gate and lets held replies go; later matches pass freely.
func (f *Fault) Release() { f.releaseMu.Do(func() { close(f.release) }) }

// Remove disarms the fault and releases whatever it holds.
func (f *Fault) Remove() {
	f.mu.Lock()
	f.removed = true
	f.mu.Unlock()
	f.Release()
}

func (f *Fault) released() <-chan struct{} { return f.release }

func (f *Fault) active() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.removed && (f.spec.Match.Times == 0 || f.left > 0)
}

// take fires the fault on t when it matches, counting it.
func (f *Fault) take(t target) bool {
	m := f.spec.Match
	if (m.PSPKey != "" && m.PSPKey != t.key) || (m.Amount != 0 && m.Amount != t.amount) || (m.Op != "" && m.Op != t.op) {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.removed || (m.Times > 0 && f.left == 0) {
		return false
	}
	if m.Times > 0 {
		f.left--
	}
	f.bumpLocked()
	return true
}

// bump counts a firing that take did not count (search lag, reordering).
func (f *Fault) bump() {
	f.mu.Lock()
	f.bumpLocked()
	f.mu.Unlock()
}

func (f *Fault) bumpLocked() {
	f.fired.Add(1)
	close(f.changed)
	f.changed = make(chan struct{})
}

// Faults arms faults on a PSP.
type Faults struct {
	p   *PSP
	mu  sync.Mutex
	all []*Fault
	seq int
}

func newFaults(p *PSP) *Faults { return &Faults{p: p} }

// Add arms a fault described by spec.
func (fs *Faults) Add(spec FaultSpec) (*Fault, error) {
	if !faultKinds[spec.Kind] {
		return nil, fmt.Errorf("fakepsp: unknown fault kind %q", spec.Kind)
	}
	if spec.Match.Times < 0 || spec.Delay < 0 || spec.Extra < 0 {
		return nil, fmt.Errorf("fakepsp: fault %s: times, delay and extra must not be negative", spec.Kind)
	}
	switch spec.Match.Op {
	case "", "charge", "refund", "authorize", "cancel":
	default:
		return nil, fmt.Errorf("fakepsp: fault %s: op must be \"charge\", \"refund\", \"authorize\", \"cancel\" or empty, got %q", spec.Kind, spec.Match.Op)
	}
	switch spec.Kind {
	case DelayBeforeCharge, DelayAfterCharge, SearchLag:
		if spec.Delay <= 0 {
			return nil, fmt.Errorf("fakepsp: fault %s needs a positive delay", spec.Kind)
		}
	case WebhookDuplicates:
		if spec.Extra <= 0 {
			return nil, fmt.Errorf("fakepsp: fault %s needs extra > 0", spec.Kind)
		}
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.seq++
	f := &Fault{id: fmt.Sprintf("f%d", fs.seq), spec: spec, left: spec.Match.Times,
		changed: make(chan struct{}), release: make(chan struct{})}
	fs.all = append(fs.all, f)
	return f, nil
}

// mustAdd backs the typed helpers, which return one value: an invalid spec
// (a non-positive delay) gives an inert fault whose Err says why and whose
// Fired stays 0, so a test asserting that it fired fails.
func (fs *Faults) mustAdd(spec FaultSpec) *Fault {
	f, err := fs.Add(spec)
	if err != nil {
		f = &Fault{id: "invalid", spec: spec, removed: true, err: err,
			changed: make(chan struct{}), release: make(chan struct{})}
	}
	return f
}

// LoseReplyAfterCharge: charge, save, close the connection without answering.
func (fs *Faults) LoseReplyAfterCharge(m Match) *Fault {
	return fs.mustAdd(FaultSpec{Kind: LoseReply, Match: m})
}

// HoldReplyAfterCharge: charge, save, hold the answer until the client gives up.
func (fs *Faults) HoldReplyAfterCharge(m Match) *Fault {
	return fs.mustAdd(FaultSpec{Kind: HoldReply, Match: m})
}

// DelayBeforeCharge sleeps d before charging.
func (fs *Faults) DelayBeforeCharge(m Match, d time.Duration) *Fault {
	return fs.mustAdd(FaultSpec{Kind: DelayBeforeCharge, Match: m, Delay: d})
}

// DelayAfterCharge sleeps d after charging, before answering.
func (fs *Faults) DelayAfterCharge(m Match, d time.Duration) *Fault {
	return fs.mustAdd(FaultSpec{Kind: DelayAfterCharge, Match: m, Delay: d})
}

// Error500BeforeCharge answers (and saves) 500 without charging.
func (fs *Faults) Error500BeforeCharge(m Match) *Fault {
	return fs.mustAdd(FaultSpec{Kind: Error500BeforeCharge, Match: m})
}

// Error500AfterCharge charges, then answers (and saves) 500.
func (fs *Faults) Error500AfterCharge(m Match) *Fault {
	return fs.mustAdd(FaultSpec{Kind: Error500AfterCharge, Match: m})
}

// RateLimit answers 429 to matching requests before the idempotency layer.
func (fs *Faults) RateLimit(m Match) *Fault { return fs.mustAdd(FaultSpec{Kind: RateLimit, Match: m}) }

// GateBeforeCharge holds matching requests before the charge until Release.
func (fs *Faults) GateBeforeCharge(m Match) *Fault {
	return fs.mustAdd(FaultSpec{Kind: GateBeforeCharge, Match: m})
}

// SearchLag makes search answer from the state of d ago.
func (fs *Faults) SearchLag(d time.Duration) *Fault {
	return fs.mustAdd(FaultSpec{Kind: SearchLag, Delay: d})
}

// WebhookDuplicates delivers matching events extra more times.
func (fs *Faults) WebhookDuplicates(m Match, extra int) *Fault {
	return fs.mustAdd(FaultSpec{Kind: WebhookDuplicates, Match: m, Extra: extra})
}

// WebhookOutOfOrder delivers matching events after the event that follows them.
func (fs *Faults) WebhookOutOfOrder(m Match) *Fault {
	return fs.mustAdd(FaultSpec{Kind: WebhookOutOfOrder, Match: m})
}

// Pause stops the whole PSP answering until Resume (see PSP.Pause).
func (fs *Faults) Pause() { fs.p.Pause() }

// Resume ends a Pause.
func (fs *Faults) Resume() { fs.p.Resume() }

// List returns every fault armed so far, removed ones included.
func (fs *Faults) List() []*Fault {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return append([]*Fault(nil), fs.all...)
}

// Get finds a fault by id.
func (fs *Faults) Get(id string) *Fault {
	for _, f := range fs.List() {
		if f.id == id {
			return f
		}
	}
	return nil
}

// Clear removes every fault.
func (fs *Faults) Clear() {
	for _, f := range fs.List() {
		f.Remove()
	}
}

// fire returns the first armed fault of kind that takes t.
func (fs *Faults) fire(kind FaultKind, t target) *Fault {
	for _, f := range fs.List() {
		if f.spec.Kind == kind && f.take(t) {
			return f
		}
	}
	return nil
}

// searchLag is the largest active search lag and its fault.
func (fs *Faults) searchLag() (time.Duration, *Fault) {
	var lag time.Duration
	var which *Fault
	for _, f := range fs.List() {
		if f.spec.Kind == SearchLag && f.active() && f.spec.Delay > lag {
			lag, which = f.spec.Delay, f
		}
	}
	return lag, which
}
