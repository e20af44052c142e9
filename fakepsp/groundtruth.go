package fakepsp

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/idemcheck/idemcheck/checker/history"
)

// groundTruth is the PSP's own log of what it charged and refunded: the
// effect side of a history (HISTORY.md), one op per charge or refund.
type groundTruth struct {
	rec  OpRecorder
	hook func(history.Op)

	mu     sync.Mutex
	log    []history.Op
	recErr error
}

func newGroundTruth(rec OpRecorder, hook func(history.Op)) *groundTruth {
	if r, ok := rec.(*history.Recorder); ok && r == nil {
		rec = nil // a typed nil in the interface means "no recorder"
	}
	return &groundTruth{rec: rec, hook: hook}
}

// effectOp builds the op for one charge or refund at the moment it happens.
func effectOp(kind, pspKey string, amount int64, md map[string]string) history.Op {
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

// add logs op. A recorder's error stays out of the API path (the charge has
// happened whatever the recorder says); RecorderErr reports the first one.
func (g *groundTruth) add(op history.Op) {
	g.mu.Lock()
	g.log = append(g.log, op)
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

// ops returns the logged ops of kind ("" = all), in order.
func (g *groundTruth) ops(kind string) []history.Op {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []history.Op
	for _, op := range g.log {
		if kind == "" || op.Op == kind {
			out = append(out, op)
		}
	}
	return out
}

// RecorderErr is the first error Config.Recorder returned, if any.
func (p *PSP) RecorderErr() error {
	p.truth.mu.Lock()
	defer p.truth.mu.Unlock()
	return p.truth.recErr
}

func writeJSONL(w io.Writer, ops []history.Op) error {
	enc := json.NewEncoder(w)
	for _, op := range ops {
		if err := enc.Encode(op); err != nil {
			return err
		}
	}
	return nil
}

// WriteHistory writes every charge and refund as JSON Lines (HISTORY.md).
func (p *PSP) WriteHistory(w io.Writer) error { return writeJSONL(w, p.truth.ops("")) }

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
