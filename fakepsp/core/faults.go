// Package core is fakepsp's money, apart from any PSP's wire: idempotency
// key records, fault kinds and where they fire, the ground truth of what was
// charged and refunded, and the webhook delivery engine. A dialect
// (fakepsp/stripe, and later others) speaks one PSP's wire over it; core
// imports no dialect (imports_test.go checks it).
package core

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// FaultKind names a fault; the control API uses the same names.
type FaultKind string

// need is what a kind's spec must carry besides its Match.
type need int

const (
	needNothing need = iota
	needDelay        // a positive Delay
	needExtra        // a positive Extra
)

// kindTable is the one list of fault kinds: each row is declared once, below,
// by kind(), which is what Add validates against and Kinds lists.
var kindTable = map[FaultKind]need{}

func kind(name string, n need) FaultKind {
	k := FaultKind(name)
	kindTable[k] = n
	return k
}

// The fault kinds, one row each. "Charge" means the request's effect: the
// charge of a PaymentIntent create (confirm=true) or confirm, the
// authorization of a manual-capture one (op "authorize"), its capture (op
// "charge": the money moves there), a cancel (op "cancel"), or the refund of a
// refund create.
var (
	// LoseReply: the charge is made and saved under the key, then the
	// connection is closed without an answer (the client sees EOF).
	LoseReply = kind("lose_reply", needNothing)
	// HoldReply: the charge is made and saved, the answer is held until the
	// client gives up (it sees its own timeout), Release, or Close.
	HoldReply = kind("hold_reply", needNothing)
	// DelayBeforeCharge / DelayAfterCharge sleep Delay around the charge.
	DelayBeforeCharge = kind("delay_before_charge", needDelay)
	DelayAfterCharge  = kind("delay_after_charge", needDelay)
	// Error500BeforeCharge answers 500 without charging; Error500AfterCharge
	// charges and answers 500. Both are saved under the key, as Stripe saves
	// every result once execution has begun.
	Error500BeforeCharge = kind("error_500_before_charge", needNothing)
	Error500AfterCharge  = kind("error_500_after_charge", needNothing)
	// RateLimit answers 429 before the idempotency layer (nothing saved).
	RateLimit = kind("rate_limit", needNothing)
	// GateBeforeCharge stops matching requests before the charge until
	// Release: a deterministic way to keep a request executing.
	GateBeforeCharge = kind("gate_before_charge", needNothing)
	// SearchLag makes search see the PaymentIntents as they were Delay ago.
	SearchLag = kind("search_lag", needDelay)
	// WebhookDuplicates delivers each matching event Extra more times after
	// its first successful delivery.
	WebhookDuplicates = kind("webhook_duplicates", needExtra)
	// WebhookOutOfOrder holds each matching event back until the next event
	// for the same endpoint has been sent (or one schedule Base has passed).
	WebhookOutOfOrder = kind("webhook_out_of_order", needNothing)
)

// Kinds lists every fault kind, sorted.
func Kinds() []FaultKind {
	out := make([]FaultKind, 0, len(kindTable))
	for k := range kindTable {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
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

// Target is what a request (or webhook event) offers to Match.
type Target struct {
	Key    string
	Amount int64
	Op     string
}

// Fault is one armed fault. Fired tells a test whether it took effect.
type Fault struct {
	id   string
	spec FaultSpec
	set  *Faults // nil for an inert fault
	seq  int     // its place in set (id "f<seq>")

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

// Undo disarms the fault and releases whatever it holds.
func (f *Fault) Undo() {
	f.mu.Lock()
	f.removed = true
	f.mu.Unlock()
	f.Release()
	if f.set != nil {
		f.set.forget(f)
	}
}

// Released is closed when the fault is released (a gate opens, held replies go).
func (f *Fault) Released() <-chan struct{} { return f.release }

func (f *Fault) active() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.removed && (f.spec.Match.Times == 0 || f.left > 0)
}

// take fires the fault on t when it matches, counting it; spent says that
// was its last firing (Times reached).
func (f *Fault) take(t Target) (took, spent bool) {
	m := f.spec.Match
	if (m.PSPKey != "" && m.PSPKey != t.Key) || (m.Amount != 0 && m.Amount != t.Amount) || (m.Op != "" && m.Op != t.Op) {
		return false, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.removed || (m.Times > 0 && f.left == 0) {
		return false, false
	}
	if m.Times > 0 {
		f.left--
	}
	f.bumpLocked()
	return true, m.Times > 0 && f.left == 0
}

// Bump counts a firing that take did not count (search lag, reordering).
func (f *Fault) Bump() {
	f.mu.Lock()
	f.bumpLocked()
	f.mu.Unlock()
	if f.set != nil {
		// A search that chose the lag before an Undo counts after it: the
		// record the set keeps of an undone fault must say so too.
		f.set.recount(f)
	}
}

func (f *Fault) bumpLocked() {
	f.fired.Add(1)
	close(f.changed)
	f.changed = make(chan struct{})
}

// Arm is Add for callers that want one value: an invalid spec (a
// non-positive delay) gives an inert fault whose Err says why and whose Fired
// stays 0, so a test asserting that it fired fails.
func (fs *Faults) Arm(spec FaultSpec) *Fault {
	f, err := fs.Add(spec)
	if err != nil {
		f = &Fault{id: "invalid", spec: spec, removed: true, err: err,
			changed: make(chan struct{}), release: make(chan struct{})}
	}
	return f
}

// Pause stops the whole PSP answering until Resume (see PSP.Pause).
func (fs *Faults) Pause() { fs.setPaused(true) }

// Resume ends a Pause.
func (fs *Faults) Resume() { fs.setPaused(false) }
