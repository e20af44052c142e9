package scenario

import (
	"sync"

	"github.com/idemcheck/idemcheck/checker/history"
)

// A round's judge asks for the PSP's refunds once per payment it judges
// (a refund shape's, a credit's), and fakepsp's refunds are a read of its
// whole ground-truth log from disk: asked per payment, the judge's time
// grew with the run. Like the attribution (attribute_env.go), the refunds
// read are kept until the PSP's count of them moves, and let go after each
// round (forgetJudged), so a soak keeps none across rounds.

// RefundLog is a PSP that counts its refunds without reading them (the
// fakepsp idemcheck started): its refunds are only ever added, so an
// unchanged count is an unchanged list.
type RefundLog interface {
	RefundCount() int
}

// refundCache is the last refunds read and their count.
type refundCache struct {
	mu  sync.Mutex
	ok  bool
	n   int
	ops []history.Op
}

// refunds is e.PSP.Refunds(), read again only when the PSP's count moved.
// Callers read the ops, never change them. A read that did not return the
// count it was asked at (a chunk lost, which the PSP's ReadError reports,
// or a refund made meanwhile) is not kept: the next ask reads again.
func (e *Env) refunds() []history.Op {
	rl, ok := e.PSP.(RefundLog)
	if !ok {
		return e.PSP.Refunds()
	}
	n := rl.RefundCount()
	c := &e.refs
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ok && c.n == n {
		return c.ops
	}
	ops := e.PSP.Refunds()
	if len(ops) == n {
		c.ok, c.n, c.ops = true, n, ops
	}
	return ops
}

// forgetRefunds lets the refunds read go (forgetJudged).
func (e *Env) forgetRefunds() {
	c := &e.refs
	c.mu.Lock()
	c.ok, c.n, c.ops = false, 0, nil
	c.mu.Unlock()
}
