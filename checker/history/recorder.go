package history

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Recorder collects one history from many goroutines. It refuses records that
// no real run can produce (a return before its call, two overlapping operations
// of one process), because a checker fed an impossible history reports
// violations of the harness rather than of the system under test.
type Recorder struct {
	mu  sync.Mutex
	ops []Op
	// open maps a process to its operation in flight; a client process
	// performs one operation at a time.
	open map[string]*Pending
	// last maps a process to the return time of its latest finished op.
	last map[string]int64
	// spans holds each process's recorded ground-truth intervals sorted by
	// call, so Record finds an overlap by looking at two neighbours.
	spans map[string][]span
	// refused keeps the refusals of Begin/End (so tests can assert none
	// happened, and a judge that none of its ops was left out), at most
	// maxRefusals of them; Forget drops them with the ops of their time.
	refused []refusal
	// over counts the refusals beyond maxRefusals, overLast the latest call
	// among them: they are not kept, but a judge asking about their time
	// learns that some were refused.
	over     int
	overLast int64
}

type span struct{ call, ret int64 }

// refusal is one op the recorder refused: whose it was, when it was called.
type refusal struct {
	intent string
	call   int64
	err    error
	// kept says the op is in the history all the same, with the weaker
	// claim of an unknown outcome: its judge misses nothing it may use.
	kept bool
}

// maxRefusals bounds the refusals kept between two Forgets: a recorder fed
// ops it refuses one by one (a whole run of them) holds a count, not a list.
const maxRefusals = 1024

// refuse keeps err as the refusal of op; r.mu is held.
func (r *Recorder) refuse(op *Op, err error, kept bool) {
	if len(r.refused) >= maxRefusals {
		if !kept {
			r.over++
			r.overLast = max(r.overLast, op.Call)
		}
		return
	}
	r.refused = append(r.refused, refusal{intent: op.Intent, call: op.Call, err: err, kept: kept})
}

// Pending is a client operation in flight, returned by Begin.
type Pending struct {
	r    *Recorder
	op   Op
	done bool
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	return &Recorder{open: map[string]*Pending{}, last: map[string]int64{}, spans: map[string][]span{}}
}

// Begin starts a client operation at Now(). If the process already has an
// operation in flight, the refusal is kept (see Errors) and the returned
// Pending records nothing.
func (r *Recorder) Begin(process, op, intent string, in Input) *Pending {
	p := &Pending{r: r, op: Op{Process: process, Op: op, Call: Now(), Intent: intent, Input: in}}
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev, busy := r.open[process]; busy {
		r.refuse(&p.op, fmt.Errorf("recorder: process %q began %s while %s (call %d) is in flight", process, op, prev.op.Op, prev.op.Call), false)
		p.done = true
		return p
	}
	if last, ok := r.last[process]; ok && p.op.Call < last {
		// The wall clock stepped back; keep the history orderable per process.
		p.op.Call = last
	}
	r.open[process] = p
	return p
}

// End completes the operation with what the caller was told, at Now().
func (p *Pending) End(out Output) error {
	ret := Now()
	o := out
	return p.finish(&ret, &o)
}

// Unknown completes the operation whose outcome the caller never learned
// (timeout, crash): return is null.
func (p *Pending) Unknown() error {
	return p.finish(nil, nil)
}

// SetRegion records which Region answered the operation.
func (p *Pending) SetRegion(region string) {
	p.r.mu.Lock()
	defer p.r.mu.Unlock()
	p.op.Region = region
}

// SetPaymentID names the payment the op refers to, when the caller learns it
// before End (e.g. from a header).
func (p *Pending) SetPaymentID(id string) {
	p.r.mu.Lock()
	defer p.r.mu.Unlock()
	p.op.PaymentID = id
}

func (p *Pending) finish(ret *int64, out *Output) error {
	r := p.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if p.done {
		return fmt.Errorf("recorder: %s by %q (call %d) already ended or was refused", p.op.Op, p.op.Process, p.op.Call)
	}
	p.done = true
	delete(r.open, p.op.Process)
	// Keep the file readable by the strict reader. An answer the reader
	// would refuse (no outcome, say) is kept as an unknown outcome, the
	// weaker claim, and the error says so; an op whose input is bad is
	// refused.
	op := p.op
	op.Return, op.Output = ret, out
	if e := validate(&op); e != nil {
		err := fmt.Errorf("recorder: %s by %q (call %d): %s", op.Op, op.Process, op.Call, strings.TrimPrefix(e.Error(), "history:0: "))
		op.Return, op.Output = nil, nil
		if validate(&op) != nil {
			r.refuse(&op, err, false)
			return err
		}
		err = fmt.Errorf("%w; recorded with an unknown outcome", err)
		r.refuse(&op, err, true)
		r.last[p.op.Process] = p.op.Call
		r.ops = append(r.ops, p.op)
		return err
	}
	if ret != nil && *ret < p.op.Call {
		*ret = p.op.Call // clock stepped back between call and return
	}
	p.op.Return = ret
	p.op.Output = out
	if ret != nil {
		r.last[p.op.Process] = *ret
	} else {
		// An unknown op may still be running; the process moves on, so its
		// next op can only start now.
		r.last[p.op.Process] = p.op.Call
	}
	r.ops = append(r.ops, p.op)
	return nil
}

// Record adds a complete operation, typically ground truth (a PSP charge, a
// ledger credit). It refuses a return before the call, and an operation that
// overlaps another recorded one of the same process (closed intervals, as
// porcupine reads them). A null return counts as the instant of the call: the
// process moved on, so its next op cannot have started before.
// Ground-truth recorders that serve requests concurrently (a PSP) must use one
// process name per concurrent worker, or record each effect as an instant.
func (r *Recorder) Record(op Op) error {
	if op.Process == "" {
		return fmt.Errorf("recorder: %s op without process", op.Op)
	}
	if !knownOp(op.Op) {
		return fmt.Errorf("recorder: unknown op %q", op.Op)
	}
	if op.Return != nil && *op.Return < op.Call {
		return fmt.Errorf("recorder: %s by %q returns at %d before its call %d", op.Op, op.Process, *op.Return, op.Call)
	}
	if e := validate(&op); e != nil {
		return fmt.Errorf("recorder: %s by %q: %s", op.Op, op.Process, strings.TrimPrefix(e.Error(), "history:0: "))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, busy := r.open[op.Process]; busy && (op.Return == nil || *op.Return >= p.op.Call) {
		return fmt.Errorf("recorder: %s by %q overlaps its %s in flight since %d", op.Op, op.Process, p.op.Op, p.op.Call)
	}
	sp := span{op.Call, op.Call}
	if op.Return != nil {
		sp.ret = *op.Return
	}
	list := r.spans[op.Process]
	i := sort.Search(len(list), func(i int) bool { return list[i].call > sp.call })
	if i > 0 && list[i-1].ret > sp.call {
		return fmt.Errorf("recorder: %s by %q [%d,%s] overlaps an earlier op of it [%d,%d]", op.Op, op.Process, op.Call, retString(op.Return), list[i-1].call, list[i-1].ret)
	}
	if i < len(list) && list[i].call < sp.ret {
		return fmt.Errorf("recorder: %s by %q [%d,%s] overlaps a later op of it [%d,%d]", op.Op, op.Process, op.Call, retString(op.Return), list[i].call, list[i].ret)
	}
	list = append(list, span{})
	copy(list[i+1:], list[i:])
	list[i] = sp
	r.spans[op.Process] = list
	r.ops = append(r.ops, op)
	return nil
}

// History returns a copy of what was recorded so far; refused operations are
// never in it.
func (r *Recorder) History() History {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append(History(nil), r.ops...)
}

// Forget drops the ops that began and ended (or ended unknown) before t,
// with the spans and return times kept to order and refuse ops of their
// processes: a long run judges its history in rounds and writes each to
// disk, and an op of a judged round is not needed in memory. Process names
// are per intent, so these maps grow with the run unless pruned too.
func (r *Recorder) Forget(t int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ops = slices.DeleteFunc(slices.Clone(r.ops), func(op Op) bool { return op.Call < t && (op.Return == nil || *op.Return < t) })
	for p, list := range r.spans {
		list = slices.DeleteFunc(list, func(s span) bool { return s.ret < t })
		if len(list) == 0 {
			delete(r.spans, p)
			continue
		}
		r.spans[p] = list
	}
	for p, last := range r.last {
		if _, busy := r.open[p]; !busy && last < t {
			delete(r.last, p)
		}
	}
	r.refused = slices.DeleteFunc(slices.Clone(r.refused), func(x refusal) bool { return x.call < t })
	if r.overLast < t {
		r.over, r.overLast = 0, 0
	}
}

// Errors returns the refusals of Begin/End so far (Record returns its own):
// those of ops called since the last Forget, the first maxRefusals of them.
func (r *Recorder) Errors() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]error, 0, len(r.refused))
	for _, x := range r.refused {
		out = append(out, x.err)
	}
	return out
}

// Refused reports the refusals of Begin/End of ops called at or after since
// whose intent mine accepts (nil: every intent) and that left the op out of
// the history: how many, and the first of them. (An op recorded with an
// unknown outcome instead is in the history, with a weaker claim, and is
// not counted.) A judge of those intents asks it before it trusts History: a refused
// op is missing from it. Refusals beyond those kept count for every intent
// (their intents are not known), and then first may name none of them.
func (r *Recorder) Refused(since int64, mine func(intent string) bool) (n int, first error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range r.refused {
		if !x.kept && x.call >= since && (mine == nil || mine(x.intent)) {
			n++
			if first == nil {
				first = x.err
			}
		}
	}
	if r.over > 0 && r.overLast >= since {
		n += r.over
		if first == nil {
			first = fmt.Errorf("recorder: %d ops refused beyond the %d whose refusals are kept (intents not known)", r.over, maxRefusals)
		}
	}
	return n, first
}

// WriteJSONL writes the history recorded so far as JSON Lines.
func (r *Recorder) WriteJSONL(w io.Writer) error {
	return WriteJSONL(w, r.History())
}

func retString(r *int64) string {
	if r == nil {
		return "null"
	}
	return fmt.Sprint(*r)
}
