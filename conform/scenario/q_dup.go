package scenario

import (
	"context"
	"fmt"
)

// runQDup: a producer retry whose first send had landed, as the consumer
// meets it: the same record (key and body) twice in a row, and a second
// payment's copy again only after the group committed past its first.
func runQDup(ctx context.Context, e *Env, t *T) {
	q := e.Queue
	if !q.requireFormed(ctx, e, t) {
		return
	}
	a, b := newQRecord(ctx, e, t), newQRecord(ctx, e, t)
	if a == nil || b == nil {
		return
	}
	first := []*qRecord{a, copyOf(a), b}
	if err := q.produce(ctx, e, first...); err != nil {
		t.Errorf("%v", err)
		return
	}
	if !q.requireCommitted(ctx, t, first, e.Cfg.ConvergeD()) {
		return
	}
	late := copyOf(b)
	if err := q.produce(ctx, e, late); err != nil {
		t.Errorf("%v", err)
		return
	}
	recs := append(first, late)
	if !q.requireCommitted(ctx, t, recs, e.Cfg.ConvergeD()) {
		return
	}
	t.judgeQueue(ctx, recs, nil)
	t.Passf("%s produced twice in a row, %s again after the group committed past its first copy (%s); the group committed past all %d", a.ref.PaymentID, b.ref.PaymentID, fmt.Sprint(first[2]), len(recs))
}
