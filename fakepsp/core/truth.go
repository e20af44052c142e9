package core

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"sync"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// OpRecorder receives every ground-truth op as it happens; *history.Recorder
// satisfies it.
type OpRecorder interface {
	Record(op history.Op) error
}

// GroundTruth is the PSP's own log of what it charged and refunded: the
// effect side of a history (HISTORY.md), one op per charge or refund.
//
// The ops are kept on disk (a spill.Log), memory keeps their count by kind:
// a soak charges thousands of intents and a judge reads them back once a
// round, while each op held in memory cost about 1 KB (issue 54).
type GroundTruth struct {
	rec  OpRecorder
	hook func(history.Op)

	log *spill.Log[loggedOp]

	mu sync.Mutex
	// kinds counts the log's ops by kind: a judge asks how many charges
	// there are far more often than they change.
	kinds   map[string]int
	n       int
	recErr  error
	readErr spill.FirstErr // the first failed read since ReadErr was last asked
}

// loggedOp is one op as the log keeps it: an op as EffectOp builds it in
// its plain fields (Effect), any other as its JSON (HISTORY.md's own
// encoding; gob would turn a pointer to zero, an amount of 0, into nil).
// Kind lets Ops(kind) decode only the ops it returns. Decoding JSON cost
// about 5 µs an op, so a judge reading 10,000 charges a round waited 50 ms.
type loggedOp struct {
	Kind   string
	Effect *effectOp
	JSON   []byte
}

// effectOp is what varies between the ops EffectOp builds.
type effectOp struct {
	Call, Return      int64
	Intent, PaymentID string
	PSPKey            string
	Amount            int64
	// Metadata is the map's keys and values in turn: gob decodes a slice
	// about twice as fast as a map.
	Metadata []string
	// HasMetadata tells an empty map from none, which gob does not.
	HasMetadata bool
}

// logged is op as the log keeps it. The compact form is used only when it
// gives back an op deeply equal to op, so that no op changes on disk.
func logged(op history.Op) loggedOp {
	if op.Return != nil && op.Input.Amount != nil {
		e := &effectOp{Call: op.Call, Return: *op.Return, Intent: op.Intent, PaymentID: op.PaymentID,
			PSPKey: op.Input.PSPKey, Amount: *op.Input.Amount, HasMetadata: op.Input.Metadata != nil}
		for k, v := range op.Input.Metadata {
			e.Metadata = append(e.Metadata, k, v)
		}
		if reflect.DeepEqual(e.op(op.Op), op) {
			return loggedOp{Kind: op.Op, Effect: e}
		}
	}
	// An op is strings and numbers, so this cannot fail; if it did, the op
	// logged without its JSON fails every read of it (OpsErr).
	b, _ := json.Marshal(op)
	return loggedOp{Kind: op.Op, JSON: b}
}

func (e *effectOp) op(kind string) history.Op {
	var md map[string]string
	if e.HasMetadata {
		md = make(map[string]string, len(e.Metadata)/2)
		for i := 0; i+1 < len(e.Metadata); i += 2 {
			md[e.Metadata[i]] = e.Metadata[i+1]
		}
	}
	return history.Op{Process: "psp", Op: kind, Call: e.Call, Return: history.Int64(e.Return),
		Intent: e.Intent, PaymentID: e.PaymentID,
		Input:  history.Input{PSPKey: e.PSPKey, Amount: history.Int64(e.Amount), Metadata: md},
		Output: &history.Output{}}
}

func (r loggedOp) op() (history.Op, error) {
	if r.Effect != nil {
		return r.Effect.op(r.Kind), nil
	}
	var op history.Op
	if err := json.Unmarshal(r.JSON, &op); err != nil {
		return op, fmt.Errorf("fakepsp: ground truth: decode a %s op: %w", r.Kind, err)
	}
	return op, nil
}

// NewGroundTruth logs ops and passes each to rec and hook when they are set.
// Its ops go to a store of its own (NewGroundTruthOn to share one).
func NewGroundTruth(rec OpRecorder, hook func(history.Op)) *GroundTruth {
	return NewGroundTruthOn(&spill.Store{Owner: "fakepsp"}, rec, hook)
}

// NewGroundTruthOn is NewGroundTruth keeping its ops on s. A read of s that
// fails is an error Ops remembers for ReadErr (and OpsErr returns).
func NewGroundTruthOn(s *spill.Store, rec OpRecorder, hook func(history.Op)) *GroundTruth {
	if r, ok := rec.(*history.Recorder); ok && r == nil {
		rec = nil // a typed nil in the interface means "no recorder"
	}
	return &GroundTruth{rec: rec, hook: hook, log: spill.NewLog[loggedOp](s)}
}

// EffectOp builds the op for one charge or refund at the moment it happens.
func EffectOp(kind, pspKey string, amount int64, md map[string]string) history.Op {
	now := history.Now()
	op := history.Op{
		Process: "psp",
		Op:      kind,
		Call:    now,
		Return:  history.Int64(now),
		Intent:  md["intent"],
		// The tiers derive the payment id; the checker links it to an intent.
		PaymentID: md["payment_id"],
		Input:     history.Input{PSPKey: pspKey, Amount: history.Int64(amount), Metadata: copyMap(md)},
		Output:    &history.Output{},
	}
	return op
}

// Add logs op. A recorder's error stays out of the API path (the charge has
// happened whatever the recorder says); RecorderErr reports the first one.
func (g *GroundTruth) Add(op history.Op) {
	r := logged(op)
	g.mu.Lock()
	// Under g.mu: the log's order is the order of the counts.
	g.log.Add(r)
	if g.kinds == nil {
		g.kinds = map[string]int{}
	}
	g.kinds[op.Op]++
	g.n++
	g.mu.Unlock()
	if g.rec != nil {
		if err := g.rec.Record(op); err != nil {
			g.mu.Lock()
			if g.recErr == nil {
				g.recErr = err
			}
			g.mu.Unlock()
		}
	}
	if g.hook != nil {
		g.hook(op)
	}
}

// Ops returns the logged ops of kind ("" = all), in order. When the log
// on disk cannot be read it returns the ops it could read and remembers the
// error for ReadErr: a judge that asks ReadErr knows its truth is short.
func (g *GroundTruth) Ops(kind string) []history.Op {
	out, err := g.OpsErr(kind)
	g.readErr.Keep(err)
	return out
}

// OpsErr is Ops returning its read error instead of remembering it.
func (g *GroundTruth) OpsErr(kind string) ([]history.Op, error) {
	g.mu.Lock()
	want, end := g.n, g.log.Len()
	if kind != "" {
		want = g.kinds[kind]
	}
	g.mu.Unlock()
	if want == 0 {
		return nil, nil
	}
	out, err := g.collect(kind, 0, end, make([]history.Op, 0, want))
	if err != nil {
		return out, fmt.Errorf("fakepsp: ground truth: read %d of its %d %s ops: %w", len(out), want, kindWord(kind), err)
	}
	return out, nil
}

// OpsFrom returns the ops of kind ("" = all) at position pos of the log
// or later, in order, and the log's length when it began: a reader that
// keeps that length reads only what was added since, next time (the
// judge of a soak's round reads its round's charges, not the run's). A
// read that fails is kept for ReadErr and returned.
func (g *GroundTruth) OpsFrom(kind string, pos int) ([]history.Op, int, error) {
	g.mu.Lock()
	end := g.log.Len()
	g.mu.Unlock()
	// Ops added from here on are after end: opsFrom leaves them out.
	return g.opsFrom(kind, pos, end)
}

// opsFrom is OpsFrom of the log's first end ops.
func (g *GroundTruth) opsFrom(kind string, pos, end int) ([]history.Op, int, error) {
	pos = min(max(pos, 0), end)
	out, err := g.collect(kind, pos, end, nil)
	if err != nil {
		err = fmt.Errorf("fakepsp: ground truth: read its %s ops from %d of %d: %w", kindWord(kind), pos, end, err)
		g.readErr.Keep(err)
		return out, end, err
	}
	return out, end, nil
}

// collect appends to out the ops of kind at positions from to end of the
// log. An op that cannot be decoded, or a chunk that cannot be read, is
// left out and its error returned.
func (g *GroundTruth) collect(kind string, from, end int, out []history.Op) ([]history.Op, error) {
	var bad error
	// By position, not by count: a chunk that cannot be read passes none
	// of its ops, and a count would run on past end.
	err := g.log.EachAt(from, func(i int, r loggedOp) bool {
		if i >= end {
			return false
		}
		if kind != "" && r.Kind != kind {
			return true
		}
		op, err := r.op()
		if err != nil {
			if bad == nil {
				bad = err
			}
			return true
		}
		out = append(out, op)
		return true
	})
	if err == nil {
		err = bad
	}
	return out, err
}

func kindWord(kind string) string {
	if kind == "" {
		return "charge and refund"
	}
	return kind
}

// ReadErr returns, and forgets, the first read of the log that failed
// since it was last asked.
func (g *GroundTruth) ReadErr() error { return g.readErr.Take() }

// Count is how many ops of kind ("" = all) Ops would return. The log is
// only ever appended to, so an unchanged count is an unchanged log.
func (g *GroundTruth) Count(kind string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if kind == "" {
		return g.n
	}
	return g.kinds[kind]
}

// RecorderErr is the first error the recorder returned, if any.
func (g *GroundTruth) RecorderErr() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.recErr
}

// WriteJSONL writes ops as JSON Lines (HISTORY.md).
func WriteJSONL(w io.Writer, ops []history.Op) error {
	enc := json.NewEncoder(w)
	for _, op := range ops {
		if err := enc.Encode(op); err != nil {
			return err
		}
	}
	return nil
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
