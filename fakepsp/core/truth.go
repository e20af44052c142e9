package core

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/idemcheck/idemcheck/checker/history"
)

// OpRecorder receives every ground-truth op as it happens; *history.Recorder
// satisfies it.
type OpRecorder interface {
	Record(op history.Op) error
}

// GroundTruth is the PSP's own log of what it charged and refunded: the
// effect side of a history (HISTORY.md), one op per charge or refund.
type GroundTruth struct {
	rec  OpRecorder
	hook func(history.Op)

	mu  sync.Mutex
	log []history.Op
	// kinds counts the log's ops by kind: a judge asks how many charges
	// there are far more often than they change.
	kinds  map[string]int
	recErr error
}

// NewGroundTruth logs ops and passes each to rec and hook when they are set.
func NewGroundTruth(rec OpRecorder, hook func(history.Op)) *GroundTruth {
	if r, ok := rec.(*history.Recorder); ok && r == nil {
		rec = nil // a typed nil in the interface means "no recorder"
	}
	return &GroundTruth{rec: rec, hook: hook}
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
	g.mu.Lock()
	g.log = append(g.log, op)
	if g.kinds == nil {
		g.kinds = map[string]int{}
	}
	g.kinds[op.Op]++
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

// Ops returns the logged ops of kind ("" = all), in order.
func (g *GroundTruth) Ops(kind string) []history.Op {
	g.mu.Lock()
	defer g.mu.Unlock()
	if kind != "" && g.kinds[kind] == 0 {
		return nil
	}
	var out []history.Op
	if kind != "" {
		out = make([]history.Op, 0, g.kinds[kind])
	}
	for _, op := range g.log {
		if kind == "" || op.Op == kind {
			out = append(out, op)
		}
	}
	return out
}

// Count is how many ops of kind ("" = all) Ops would return. The log is
// only ever appended to, so an unchanged count is an unchanged log.
func (g *GroundTruth) Count(kind string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if kind == "" {
		return len(g.log)
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
