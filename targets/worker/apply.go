package worker

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/targets/dedup"
)

// lookupPayments defines "unknown payment": the ledger has no payments row
// with the event's payment id. The ledger commits the row with the outbox
// row, so an event without one can never become valid by waiting. The
// recipient of the notification is the payment's caller.
func (w *Worker) lookupPayments(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := w.pool.Query(ctx, `SELECT payment_id, caller_id FROM payments WHERE payment_id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("payment lookup: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, caller string
		if err := rows.Scan(&id, &caller); err != nil {
			return nil, fmt.Errorf("payment lookup: %w", err)
		}
		out[id] = caller
	}
	return out, rows.Err()
}

// applyBatch is the batch's one transaction: dead letters, inbox rows,
// credits and notification intents. Nothing of a batch is applied unless all
// of it is, so a crash anywhere before the commit redelivers a batch that
// left no trace.
func (w *Worker) applyBatch(ctx context.Context, items []item) error {
	call := history.Now()
	tx, err := w.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if err := w.deadLetters(ctx, tx, items); err != nil {
		return err
	}
	if err := w.inbox(ctx, tx, items); err != nil {
		return err
	}
	if err := w.credit(ctx, tx, items, call); err != nil {
		return err
	}
	if err := w.intents(ctx, tx, items); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// deadLetters parks the records that can never be processed, with their
// reasons. Keyed by log position, so a redelivery parks each once.
func (w *Worker) deadLetters(ctx context.Context, tx pgx.Tx, items []item) error {
	for i := range items {
		it := &items[i]
		if it.dead == "" {
			continue
		}
		r := it.rec
		if _, err := tx.Exec(ctx, `INSERT INTO dead_letters (topic, part, "offset", key, value, reason, worker)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (topic, part, "offset") DO NOTHING`,
			r.Topic, r.Partition, r.Offset, r.Key, r.Value, it.dead, w.cfg.Name); err != nil {
			return fmt.Errorf("dead letter %s/%d@%d: %w", r.Topic, r.Partition, r.Offset, err)
		}
	}
	return nil
}

// inbox records the batch's event ids in tx and marks the fresh deliveries:
// for each id the inbox had not seen, its first copy in the batch. Without
// the inbox guard every delivery is fresh.
func (w *Worker) inbox(ctx context.Context, tx pgx.Tx, items []item) error {
	var ids []string
	for i := range items {
		if items[i].dead == "" {
			ids = append(ids, items[i].m.eventID)
		}
	}
	if !w.cfg.Guards.Inbox {
		for i := range items {
			items[i].fresh = items[i].dead == ""
		}
		return nil
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, `INSERT INTO processed (event_id, worker) SELECT DISTINCT e, $2 FROM unnest($1::text[]) AS e
		ON CONFLICT (event_id) DO NOTHING RETURNING event_id`, ids, w.cfg.Name)
	if err != nil {
		return fmt.Errorf("inbox: %w", err)
	}
	inserted, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("inbox: %w", err)
	}
	markFresh(items, inserted)
	return nil
}

// markFresh marks, for each event id the inbox took in, the first live copy
// of it in the batch: the later copies are repeats of that one.
func markFresh(items []item, inserted []string) {
	unclaimed := make(map[string]bool, len(inserted))
	for _, id := range inserted {
		unclaimed[id] = true
	}
	for i := range items {
		if it := &items[i]; it.dead == "" && unclaimed[it.m.eventID] {
			it.fresh = true
			delete(unclaimed, it.m.eventID)
		}
	}
}

// credit applies the fresh payment deliveries: one balance upsert per
// merchant (summed, in merchant order so two workers never deadlock) and one
// credits row per delivery, the ground truth of what was applied.
func (w *Worker) credit(ctx context.Context, tx pgx.Tx, items []item, call int64) error {
	sums := map[string]int64{}
	var evs, pays, merchants []string
	var amounts []int64
	for i := range items {
		it := &items[i]
		if it.dead != "" || !it.fresh || it.m.pay == nil {
			continue
		}
		p := it.m.pay
		sums[p.Merchant] += p.Amount
		evs, pays, merchants, amounts = append(evs, p.EventID), append(pays, p.PaymentID), append(merchants, p.Merchant), append(amounts, p.Amount)
	}
	if len(evs) == 0 {
		return nil
	}
	ms := make([]string, 0, len(sums))
	for m := range sums {
		ms = append(ms, m)
	}
	slices.Sort(ms)
	totals := make([]int64, len(ms))
	for i, m := range ms {
		totals[i] = sums[m]
	}
	if _, err := tx.Exec(ctx, `INSERT INTO merchant_balances (merchant, balance) SELECT * FROM unnest($1::text[], $2::bigint[])
		ON CONFLICT (merchant) DO UPDATE SET balance = merchant_balances.balance + EXCLUDED.balance`, ms, totals); err != nil {
		return fmt.Errorf("credit %d events: %w", len(evs), err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO credits (event_id, payment_id, merchant, amount, worker, call_ns, return_ns)
		SELECT e, p, m, a, $5, $6, $7 FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) WITH ORDINALITY AS t(e, p, m, a, o) ORDER BY o`,
		evs, pays, merchants, amounts, w.cfg.Name, call, history.Now()); err != nil {
		return fmt.Errorf("credit records of %d events: %w", len(evs), err)
	}
	return nil
}

// intents writes the notification record of each fresh delivery: PENDING for
// a payment, and for a reminder the dedup verdict that decided it (asked in
// the batch's order, so the first of two logical duplicates wins).
func (w *Worker) intents(ctx context.Context, tx pgx.Tx, items []item) error {
	var evs, pays, intents, recipients, replaces, states, verdicts []string
	seen := map[string]bool{}
	for i := range items {
		it := &items[i]
		if it.dead != "" || !it.fresh || seen[it.m.eventID] || (it.m.pay != nil && !w.cfg.Guards.NotifRecord) {
			continue
		}
		seen[it.m.eventID] = true
		state, verdict := StatePending, ""
		if rem := it.m.rem; rem != nil {
			fp := dedup.Fingerprint(rem.Recipient, rem.Template, rem.BusinessKey)
			v, gerr := w.guard.Accept(ctx, rem.Recipient, fp, rem.EventID)
			if gerr != nil {
				w.cfg.Log.Printf("worker %s: dedup cache failed, sending %s anyway: %v", w.cfg.Name, rem.EventID, gerr)
			}
			if v == dedup.Duplicate || v == dedup.Capped {
				state = StateDropped
			}
			verdict = string(v)
		}
		n := it.n
		evs, pays, intents, recipients = append(evs, n.EventID), append(pays, n.PaymentID), append(intents, n.Intent), append(recipients, n.Recipient)
		replaces, states, verdicts = append(replaces, n.ReplaceID), append(states, state), append(verdicts, verdict)
	}
	if len(evs) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, `INSERT INTO notif (event_id, channel, payment_id, intent, recipient, replace_id, state, verdict)
		SELECT e, $1, nullif(p, ''), nullif(i, ''), r, nullif(x, ''), s, nullif(v, '')
		FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) AS t(e, p, i, r, x, s, v)
		ON CONFLICT (event_id, channel) DO NOTHING RETURNING event_id, state`, ChannelPush, evs, pays, intents, recipients, replaces, states, verdicts)
	if err != nil {
		return fmt.Errorf("notification intents of %d events: %w", len(evs), err)
	}
	// The rows written PENDING: notifyBatch need not read them back.
	recorded := map[string]bool{}
	var id, state string
	if _, err := pgx.ForEachRow(rows, []any{&id, &state}, func() error {
		recorded[id] = state == StatePending
		return nil
	}); err != nil {
		return fmt.Errorf("notification intents of %d events: %w", len(evs), err)
	}
	for i := range items {
		if it := &items[i]; it.dead == "" {
			it.recorded = recorded[it.m.eventID]
		}
	}
	return nil
}
