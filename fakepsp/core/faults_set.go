package core

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// Faults arms faults on a PSP.
//
// A soak arms and undoes thousands of faults over an hour (3,048 in one),
// and every PSP request asks Fire. So Fire scans only the faults that can
// still fire (live), without copying them: live is replaced, never changed
// in place, and a reader scans the slice it took under the lock. A fault
// that can no longer act (undone, or spent and holding nothing) leaves live
// and its Fault (mutex, channels) for a 16-byte record of its fired count;
// its spec, which the control API still lists and gets by id, is on disk
// (specs) from the moment it is armed.
type Faults struct {
	setPaused func(bool) // the PSP's pause switch, for Pause and Resume
	mu        sync.Mutex
	live      []*Fault   // armed, not spent: what Fire scans
	recs      []faultRec // every fault armed, recs[seq-1]
	specs     specLog    // every fault's spec, specs[seq-1]
}

// faultRec is one armed fault: the Fault while it may still act (fire,
// hold replies, gate requests), then only its fired count.
type faultRec struct {
	f     *Fault // nil once compacted
	fired int64
}

// specLog keeps the faults' specs, in the order armed: on disk when the
// set has a store, else in memory.
type specLog struct {
	disk *spill.Log[FaultSpec]
	mem  []FaultSpec
}

func (l *specLog) add(s FaultSpec) {
	if l.disk != nil {
		l.disk.Add(s)
		return
	}
	l.mem = append(l.mem, s)
}

// page returns the specs of page i (spill.ChunkLen a page).
func (l *specLog) page(i int) ([]FaultSpec, error) {
	if l.disk != nil {
		return l.disk.Page(i)
	}
	return l.mem[i*spill.ChunkLen : min((i+1)*spill.ChunkLen, len(l.mem))], nil
}

// NewFaults makes an empty fault set; setPaused is the PSP's pause switch.
// Specs go to disk, whose Store the caller closes; nil keeps them in memory.
func NewFaults(setPaused func(paused bool), disk *spill.Store) *Faults {
	fs := &Faults{setPaused: setPaused}
	if disk != nil {
		fs.specs.disk = spill.NewLog[FaultSpec](disk)
	}
	return fs
}

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
	fs.specs.add(spec)
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
	fs.recs[f.seq-1] = faultRec{fired: f.Fired()}
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

// fault is rec's Fault, or one made from its record and spec: disarmed,
// released, with its fired count, and not the set's (undoing it changes
// nothing).
func (r faultRec) fault(seq int, spec FaultSpec) *Fault {
	if r.f != nil {
		return r.f
	}
	f := &Fault{id: "f" + strconv.Itoa(seq), spec: spec, seq: seq, removed: true,
		changed: make(chan struct{}), release: make(chan struct{})}
	f.fired.Store(r.fired)
	f.Release()
	return f
}

// List returns every fault armed so far, removed ones included, in the
// order they were armed. An error is a page of specs that could not be
// read back: no list is returned then, as a shorter one would be a lie.
func (fs *Faults) List() ([]*Fault, error) {
	fs.mu.Lock()
	recs := slices.Clone(fs.recs)
	fs.mu.Unlock()
	out := make([]*Fault, len(recs))
	var page []FaultSpec
	at := -1 // the page read into page: a page's armed faults read none
	for i, r := range recs {
		if r.f == nil && at != i/spill.ChunkLen {
			var err error
			if page, err = fs.specs.page(i / spill.ChunkLen); err != nil {
				return nil, fmt.Errorf("fakepsp: the faults' specs: %w", err)
			}
			at = i / spill.ChunkLen
		}
		var spec FaultSpec
		if r.f == nil {
			spec = page[i%spill.ChunkLen]
		}
		out[i] = r.fault(i+1, spec)
	}
	return out, nil
}

// Get finds a fault by id: nil when there is none, an error when its spec
// cannot be read back.
func (fs *Faults) Get(id string) (*Fault, error) {
	seq, err := strconv.Atoi(strings.TrimPrefix(id, "f"))
	if err != nil || !strings.HasPrefix(id, "f") || "f"+strconv.Itoa(seq) != id {
		return nil, nil
	}
	fs.mu.Lock()
	if seq < 1 || seq > len(fs.recs) {
		fs.mu.Unlock()
		return nil, nil
	}
	r := fs.recs[seq-1]
	fs.mu.Unlock()
	if r.f != nil {
		return r.f, nil
	}
	page, err := fs.specs.page((seq - 1) / spill.ChunkLen)
	if err != nil {
		return nil, fmt.Errorf("fakepsp: the spec of fault %s: %w", id, err)
	}
	return r.fault(seq, page[(seq-1)%spill.ChunkLen]), nil
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
