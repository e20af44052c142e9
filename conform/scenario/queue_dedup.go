package scenario

import (
	"context"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/conform/broker"
)

// DedupMargin is added to a broker's dedup window before a copy meant to
// fall outside it: the broker measures the window on its own clock.
const DedupMargin = time.Second

// DedupWindow is how long the run's broker drops a copy by its dedup id
// (0: it has no window; broker.Open refuses a broker that declares one
// without saying how long).
func (q *Queue) DedupWindow() time.Duration {
	if d, ok := q.Broker.(broker.Deduper); ok && q.Caps&broker.DedupWindow != 0 {
		return d.DedupWindow()
	}
	return 0
}

// DupWords says which duplicate cp (a CopyOf orig, both produced) is, as
// Q-dup's evidence says it: the same body without a dedup id, or with its
// original's id inside or outside the broker's window. Inside and outside
// are said only when the produce times prove it (the broker took each copy
// between its send and its acknowledgement); a copy at the window's edge
// says so. On a copy with a dedup id it also becomes part of the record's
// evidence in a finding.
func (q *Queue) DupWords(orig, cp *QRecord) string {
	w := q.DedupWindow()
	if w == 0 || cp.dedup == "" {
		return fmt.Sprintf("the same key and body re-produced without a dedup id (broker %s has no dedup window)", q.Cfg.Broker)
	}
	// In one Produce both bounds overlap: least is then 0.
	least, most := max(cp.sent.Sub(orig.acked), 0), cp.acked.Sub(orig.sent)
	var where string
	switch {
	case most < w:
		where = fmt.Sprintf("inside the broker's %s dedup window: the broker is to drop it", w)
	case least >= w:
		where = fmt.Sprintf("outside the broker's %s dedup window: the broker delivers it again", w)
	default:
		where = fmt.Sprintf("at the edge of the broker's %s dedup window: whether the broker dropped it is unknown", w)
	}
	cp.dupNote = fmt.Sprintf("the same key, body and dedup id %s re-produced %s after the first, %s", cp.dedup, least.Round(time.Millisecond), where)
	return cp.dupNote
}

// OutsideDedupWindow waits until a copy of r produced now falls outside the
// broker's dedup window, saying how long it waits; false (the check made
// inconclusive) when the wait is longer than the run may wait.
func (q *Queue) OutsideDedupWindow(ctx context.Context, e *Env, t *T, r *QRecord) bool {
	return q.OutsideDedupWindowAfter(ctx, e, t, r, "")
}

// OutsideDedupWindowAfter is OutsideDedupWindow after another copy
// already reached the consumer (exercised says which, and what became of
// it): a window too long to wait then leaves only the late copy unsent.
func (q *Queue) OutsideDedupWindowAfter(ctx context.Context, e *Env, t *T, r *QRecord, exercised string) bool {
	w := q.DedupWindow()
	if w == 0 {
		return true
	}
	d := time.Until(r.acked.Add(w + DedupMargin))
	if d <= 0 {
		return true
	}
	if d > e.MaxWait && exercised != "" {
		t.Inconclusive("a copy reached the consumer past the broker's dedup window",
			"the window (%s) is longer than the run may wait (%s): the late copy with its first's dedup id was not sent; the consumer's dedup was exercised only by %s", w, e.MaxWait, exercised)
		return false
	}
	if d > e.MaxWait {
		t.Inconclusive("a copy reached the consumer past the broker's dedup window",
			"the window (%s) is longer than the run may wait (%s): only the broker's dedup was exercised, not the consumer's", w, e.MaxWait)
		return false
	}
	e.Logf("  waiting %s for the broker's %s dedup window over %s to pass", d.Round(time.Millisecond), w, r)
	return e.sleepFor(ctx, WaitWindow, d) == nil
}
