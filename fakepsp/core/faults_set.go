package core

import (
	"fmt"
	"maps"
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
// that can no longer act (undone, or spent and holding nothing) leaves
// live and armed, and its Fault (mutex, channels), for its fired count on
// disk (fired); its spec, which the control API still lists and gets by
// id, is on disk (specs) from the moment it is armed. What the set keeps
// in memory is then bounded by the faults armed at once, not by the run:
// a 16-byte record a fault was the largest thing a soak's fakepsp still
// grew by (issue 54).
type Faults struct {
	setPaused func(bool) // the PSP's pause switch, for Pause and Resume
	mu        sync.Mutex
	live      []*Fault       // armed, not spent: what Fire scans
	n         int            // faults armed so far, f1 to fn
	armed     map[int]*Fault // by seq, those that may still act
	fired     firedLog       // by seq, the others' fired counts
	specs     specLog        // every fault's spec, specs[seq-1]
}

// firedLog keeps the fired counts of the faults that can no longer act:
// count+1 in word seq-1 on disk (0 is a word never written), or in memory
// when the set has no store or a write failed.
type firedLog struct {
	disk *spill.Words
	mem  map[int]int64
}

func (l *firedLog) set(seq int, fired int64) {
	if l.disk != nil && l.disk.Set(int64(seq-1), uint64(fired)+1) == nil {
		delete(l.mem, seq)
		return
	}
	if l.mem == nil {
		l.mem = map[int]int64{}
	}
	l.mem[seq] = fired
}

// page returns the fired counts of page i (spill.ChunkLen a page) as
// count+1, 0 where none was written to disk; mem's are the caller's to
// look up first.
func (l *firedLog) page(i int) ([]uint64, error) {
	out := make([]uint64, spill.ChunkLen)
	if l.disk == nil {
		return out, nil
	}
	return out, l.disk.Read(int64(i*spill.ChunkLen), out)
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
	fs := &Faults{setPaused: setPaused, armed: map[int]*Fault{}}
	if disk != nil {
		fs.specs.disk = spill.NewLog[FaultSpec](disk)
		fs.fired.disk = disk.Words("fault-fired")
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
	fs.n++
	seq := fs.n
	f := &Fault{id: "f" + strconv.Itoa(seq), spec: spec, set: fs, seq: seq, left: spec.Match.Times,
		changed: make(chan struct{}), release: make(chan struct{})}
	fs.armed[seq] = f
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

// compactLocked keeps only f's fired count.
func (fs *Faults) compactLocked(f *Fault) {
	delete(fs.armed, f.seq)
	fs.fired.set(f.seq, f.Fired())
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
	if !holds(f.spec.Kind) && fs.armed[f.seq] == f {
		fs.compactLocked(f)
	}
}

// recount is Bump's on a fault that may be compacted already.
func (fs *Faults) recount(f *Fault) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.armed[f.seq] != f {
		fs.fired.set(f.seq, f.Fired())
	}
}

// record makes a Fault of a fault that can no longer act, from its fired
// count and spec: disarmed, released, and not the set's (undoing it
// changes nothing).
func record(seq int, fired int64, spec FaultSpec) *Fault {
	f := &Fault{id: "f" + strconv.Itoa(seq), spec: spec, seq: seq, removed: true,
		changed: make(chan struct{}), release: make(chan struct{})}
	f.fired.Store(fired)
	f.Release()
	return f
}

// List returns every fault armed so far, removed ones included, in the
// order they were armed. An error is a page of specs or fired counts that
// could not be read back: no list is returned then, as a shorter one would
// be a lie.
func (fs *Faults) List() ([]*Fault, error) {
	// A fault compacted after this snapshot is its Fault here; one
	// compacted before it has its count written already.
	fs.mu.Lock()
	n, armed, mem := fs.n, maps.Clone(fs.armed), maps.Clone(fs.fired.mem)
	fs.mu.Unlock()
	out := make([]*Fault, n)
	for p := 0; p*spill.ChunkLen < n; p++ {
		var specs []FaultSpec
		var fired []uint64
		for i := p * spill.ChunkLen; i < min((p+1)*spill.ChunkLen, n); i++ {
			seq := i + 1
			if f := armed[seq]; f != nil {
				out[i] = f
				continue
			}
			if specs == nil {
				var err error
				if specs, err = fs.specs.page(p); err != nil {
					return nil, fmt.Errorf("fakepsp: the faults' specs: %w", err)
				}
				if fired, err = fs.fired.page(p); err != nil {
					return nil, fmt.Errorf("fakepsp: the faults' fired counts: %w", err)
				}
			}
			c, ok := mem[seq]
			if !ok {
				if fired[i%spill.ChunkLen] == 0 {
					return nil, fmt.Errorf("fakepsp: the fired count of fault f%d was never written", seq)
				}
				c = int64(fired[i%spill.ChunkLen] - 1)
			}
			out[i] = record(seq, c, specs[i%spill.ChunkLen])
		}
	}
	return out, nil
}

// Get finds a fault by id: nil when there is none, an error when its spec
// or fired count cannot be read back.
func (fs *Faults) Get(id string) (*Fault, error) {
	seq, err := strconv.Atoi(strings.TrimPrefix(id, "f"))
	if err != nil || !strings.HasPrefix(id, "f") || "f"+strconv.Itoa(seq) != id {
		return nil, nil
	}
	fs.mu.Lock()
	if seq < 1 || seq > fs.n {
		fs.mu.Unlock()
		return nil, nil
	}
	f := fs.armed[seq]
	c, inMem := fs.fired.mem[seq]
	var w uint64
	if f == nil && !inMem && fs.fired.disk != nil {
		// Under the lock: a recount may be writing it.
		w, err = fs.fired.disk.Get(int64(seq - 1))
	}
	fs.mu.Unlock()
	if f != nil {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("fakepsp: the fired count of fault %s: %w", id, err)
	}
	if !inMem {
		if w == 0 {
			return nil, fmt.Errorf("fakepsp: the fired count of fault %s was never written", id)
		}
		c = int64(w - 1)
	}
	page, err := fs.specs.page((seq - 1) / spill.ChunkLen)
	if err != nil {
		return nil, fmt.Errorf("fakepsp: the spec of fault %s: %w", id, err)
	}
	return record(seq, c, page[(seq-1)%spill.ChunkLen]), nil
}

// Clear removes every fault.
func (fs *Faults) Clear() {
	fs.mu.Lock()
	undo := slices.SortedFunc(maps.Values(fs.armed), func(a, b *Fault) int { return a.seq - b.seq })
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
