package worker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/push"
)

// pushConcurrency bounds the pushes of one batch in flight. Pushes of one
// batch may land in any order: each names its own notification by replace id,
// so the screen does not depend on their order.
const pushConcurrency = 32

// notifyBatch sends every PENDING notification of the batch and marks the
// sent ones SENT in one statement. A crash between a push and the mark sends
// it again on the next delivery; the replace id makes that copy land on top of
// the first. On its first try, the records the batch's own transaction wrote
// PENDING are known to be PENDING; a retry reads every record again, since
// the try before it may have marked some SENT.
func (w *Worker) notifyBatch(ctx context.Context, items []item, first bool) error {
	var direct, sends []push.Notification
	var candidates []string
	known := map[string]bool{}
	for i := range items {
		it := &items[i]
		if it.dead != "" || (!it.fresh && !w.cfg.Guards.FinishOnRedelivery) {
			continue // poison, or the mutant that only acknowledges a repeat
		}
		it.n.Sender = w.cfg.Name
		if !w.cfg.Guards.NotifRecord && it.m.pay != nil {
			direct = append(direct, it.n) // no record: every delivery pushes
			continue
		}
		if first && it.recorded {
			known[it.m.eventID] = true
			continue
		}
		candidates = append(candidates, it.m.eventID)
	}
	pending, err := w.pendingOf(ctx, candidates)
	if err != nil {
		return err
	}
	for id := range known {
		pending[id] = true
	}
	for i := range items {
		it := &items[i]
		if it.dead == "" && pending[it.m.eventID] {
			sends = append(sends, it.n)
			delete(pending, it.m.eventID) // one push per notification, not per copy
		}
	}
	errs := w.pushAll(ctx, append(direct, sends...))
	var sent []string
	for i, n := range sends {
		if errs[len(direct)+i] == nil {
			sent = append(sent, n.EventID)
		}
	}
	if len(sent) > 0 {
		if _, err := w.pool.Exec(ctx, `UPDATE notif SET state = $1, sent_by = $2 WHERE channel = $3 AND state = $4 AND event_id = ANY($5)`,
			StateSent, w.cfg.Name, ChannelPush, StatePending, sent); err != nil {
			return fmt.Errorf("mark %d sent: %w", len(sent), err)
		}
	}
	return errors.Join(errs...)
}

// pendingOf returns which of ids have a PENDING notification record.
func (w *Worker) pendingOf(ctx context.Context, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := w.pool.Query(ctx, `SELECT event_id FROM notif WHERE channel = $1 AND state = $2 AND event_id = ANY($3)`, ChannelPush, StatePending, ids)
	if err != nil {
		return nil, fmt.Errorf("notification states: %w", err)
	}
	pend, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("notification states: %w", err)
	}
	for _, id := range pend {
		out[id] = true
	}
	return out, nil
}

// pushAll sends ns concurrently and returns each send's error; a send counts
// only once the phone got it and the point after the push was passed. A few
// senders take the notifications in turn: a goroutine per push would grow a
// fresh stack for every HTTP call.
func (w *Worker) pushAll(ctx context.Context, ns []push.Notification) []error {
	errs := make([]error, len(ns))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(pushConcurrency, len(ns)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(ns); i = int(next.Add(1) - 1) {
				if _, err := w.push.Send(ctx, ns[i]); err != nil {
					errs[i] = err
					continue
				}
				errs[i] = failpoint.Hit(AfterPushBeforeSent)
			}
		}()
	}
	wg.Wait()
	return errs
}
