package core

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Faults arms faults on a PSP.
//
// A soak arms and undoes thousands of faults over an hour (3,048 in one),
// and every PSP request asks Fire. So Fire scans only the faults that can
// still fire (live), without copying them: live is replaced, never changed
// in place, and a reader scans the slice it took under the lock. A fault
// that can no longer act (undone, or spent and holding nothing) leaves live
// and its Fault (mutex, channels) for a compact record that the control API
// still lists and gets by id, with its fired count.
type Faults struct {
	setPaused func(bool) // the PSP's pause switch, for Pause and Resume
	mu        sync.Mutex
	live      []*Fault   // armed, not spent: what Fire scans
	recs      []faultRec // every fault armed, recs[seq-1]
}

// faultRec is one armed fault: the Fault while it may still act (fire,
// hold replies, gate requests), then only what the control API shows of it.
type faultRec struct {
	f     *Fault // nil once compacted
	spec  FaultSpec
	fired int64
}

// NewFaults makes an empty fault set; setPaused is the PSP's pause switch.
func NewFaults(setPaused func(paused bool)) *Faults { return &Faults{setPaused: setPaused} }

// Add arms a fault described by spec.
func (fs *Faults) Add(spec FaultSpec) (*Fault, error) {
	n, ok := kindTable[spec.Kind]
	if !ok {
		return nil, fmt.Errorf("fakepsp: unknown fault kind %q (have %v)", spec.Kind, Kinds())
	}
	if spec.Match.Times < 0 || spec.Delay < 0 || spec.Extra < 0 {
		return nil, fmt.Errorf("fakepsp: fault %s: times, delay and extra must not be negative", spec.Kind)
	}
	switch spec.Match.Op {
	case "", "charge", "refund", "authorize", "cancel":
	default:
		return nil, fmt.Errorf("fakepsp: fault %s: op must be \"charge\", \"refund\", \"authorize\", \"cancel\" or empty, got %q", spec.Kind, spec.Match.Op)
	}
	if n == needDelay && spec.Delay <= 0 {
		return nil, fmt.Errorf("fakepsp: fault %s needs a positive delay", spec.Kind)
	}
	if n == needExtra && spec.Extra <= 0 {
		return nil, fmt.Errorf("fakepsp: fault %s needs extra > 0", spec.Kind)
	}
	// Kept for the run's length even once undone: not the buffer a control
	// request's body was decoded from.
	spec.Match.PSPKey = strings.Clone(spec.Match.PSPKey)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	seq := len(fs.recs) + 1
	f := &Fault{id: "f" + strconv.Itoa(seq), spec: spec, set: fs, seq: seq, left: spec.Match.Times,
		changed: make(chan struct{}), release: make(chan struct{})}
	fs.recs = append(fs.recs, faultRec{f: f})
	fs.live = append(fs.live[:len(fs.live):len(fs.live)], f)
	return f, nil
}

// holds: a fault of this kind keeps requests or replies until Release, so
// a spent one must stay reachable by id until then.
func holds(k FaultKind) bool { return k == HoldReply || k == GateBeforeCharge }

// withoutLocked replaces live by a copy without f: a Fire that took the
// old slice scans it unchanged.
func (fs *Faults) withoutLocked(f *Fault) {
	for i, g := range fs.live {
		if g == f {
			live := make([]*Fault, 0, len(fs.live)-1)
			fs.live = append(append(live, fs.live[:i]...), fs.live[i+1:]...)
			return
		}
	}
}

// compactLocked keeps only f's record.
func (fs *Faults) compactLocked(f *Fault) {
	fs.recs[f.seq-1] = faultRec{spec: f.spec, fired: f.Fired()}
}

// forget is Undo's: f no longer fires nor holds anything.
func (fs *Faults) forget(f *Fault) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.withoutLocked(f)
	fs.compactLocked(f)
}

// spent is Fire's when f reached its Times.
func (fs *Faults) spent(f *Fault) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.withoutLocked(f)
	if !holds(f.spec.Kind) && fs.recs[f.seq-1].f == f {
		fs.compactLocked(f)
	}
}

// recount is Bump's on a fault that may be compacted already.
func (fs *Faults) recount(f *Fault) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if r := &fs.recs[f.seq-1]; r.f == nil {
		r.fired = f.Fired()
	}
}

// fault is rec's Fault, or one made from its record: disarmed, released,
// with its fired count, and not the set's (undoing it changes nothing).
func (r faultRec) fault(seq int) *Fault {
	if r.f != nil {
		return r.f
	}
	f := &Fault{id: "f" + strconv.Itoa(seq), spec: r.spec, seq: seq, removed: true,
		changed: make(chan struct{}), release: make(chan struct{})}
	f.fired.Store(r.fired)
	f.Release()
	return f
}

// List returns every fault armed so far, removed ones included, in the
// order they were armed.
func (fs *Faults) List() []*Fault {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	out := make([]*Fault, len(fs.recs))
	for i, r := range fs.recs {
		out[i] = r.fault(i + 1)
	}
	return out
}

// Get finds a fault by id.
func (fs *Faults) Get(id string) *Fault {
	seq, err := strconv.Atoi(strings.TrimPrefix(id, "f"))
	if err != nil || !strings.HasPrefix(id, "f") || "f"+strconv.Itoa(seq) != id {
		return nil
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if seq < 1 || seq > len(fs.recs) {
		return nil
	}
	return fs.recs[seq-1].fault(seq)
}

// Clear removes every fault.
func (fs *Faults) Clear() {
	fs.mu.Lock()
	var undo []*Fault
	for _, r := range fs.recs {
		if r.f != nil {
			undo = append(undo, r.f)
		}
	}
	fs.mu.Unlock()
	for _, f := range undo {
		f.Undo()
	}
}

func (fs *Faults) scan() []*Fault {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.live
}

// Fire returns the first armed fault of kind that takes t.
func (fs *Faults) Fire(kind FaultKind, t Target) *Fault {
	for _, f := range fs.scan() {
		if f.spec.Kind != kind {
			continue
		}
		if took, spent := f.take(t); took {
			if spent {
				fs.spent(f)
			}
			return f
		}
	}
	return nil
}

// LargestSearchLag is the largest active search lag and its fault.
func (fs *Faults) LargestSearchLag() (time.Duration, *Fault) {
	var lag time.Duration
	var which *Fault
	for _, f := range fs.scan() {
		if f.spec.Kind == SearchLag && f.active() && f.spec.Delay > lag {
			lag, which = f.spec.Delay, f
		}
	}
	return lag, which
}
