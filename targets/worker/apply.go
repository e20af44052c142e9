package worker

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/targets/dedup"
	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/push"
	"github.com/idemcheck/idemcheck/targets/relay"
)

// lookupPayment defines "unknown payment": the ledger has no payments row with
// the event's payment id. The ledger commits the row with the outbox row, so
// an event without one can never become valid by waiting. The recipient of
// the notification is the payment's caller.
func (w *Worker) lookupPayment(ctx context.Context, id string) (recipient string, known bool, err error) {
	err = w.pool.QueryRow(ctx, `SELECT caller_id FROM payments WHERE payment_id = $1`, id).Scan(&recipient)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	return recipient, err == nil, err
}

// inbox records eventID in tx; fresh is false for a repeat. Without the inbox
// guard every delivery is fresh.
func (w *Worker) inbox(ctx context.Context, tx pgx.Tx, eventID string) (bool, error) {
	if !w.cfg.Guards.Inbox {
		return true, nil
	}
	tag, err := tx.Exec(ctx, `INSERT INTO processed (event_id, worker) VALUES ($1, $2) ON CONFLICT (event_id) DO NOTHING`, eventID, w.cfg.Name)
	if err != nil {
		return false, fmt.Errorf("inbox %s: %w", eventID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// applyPayment is the effect's one transaction: inbox, credit, intent.
func (w *Worker) applyPayment(ctx context.Context, ev *relay.Event, n push.Notification) (bool, error) {
	call := checker.Now()
	tx, err := w.pool.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	fresh, err := w.inbox(ctx, tx, ev.EventID)
	if err != nil || !fresh {
		return false, err // a repeat writes nothing
	}
	if _, err := tx.Exec(ctx, `INSERT INTO merchant_balances (merchant, balance) VALUES ($1, $2)
		ON CONFLICT (merchant) DO UPDATE SET balance = merchant_balances.balance + EXCLUDED.balance`, ev.Merchant, ev.Amount); err != nil {
		return false, fmt.Errorf("credit %s: %w", ev.EventID, err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO credits (event_id, payment_id, merchant, amount, worker, call_ns, return_ns)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, ev.EventID, ev.PaymentID, ev.Merchant, ev.Amount, w.cfg.Name, call, checker.Now()); err != nil {
		return false, fmt.Errorf("credit record %s: %w", ev.EventID, err)
	}
	if w.cfg.Guards.NotifRecord {
		if err := insertIntent(ctx, tx, n, StatePending, ""); err != nil {
			return false, err
		}
	}
	return true, tx.Commit(ctx)
}

// applyReminder records a logical message's intent, or its drop, with the
// dedup verdict that decided it.
func (w *Worker) applyReminder(ctx context.Context, rem *Reminder, n push.Notification) (bool, error) {
	tx, err := w.pool.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	fresh, err := w.inbox(ctx, tx, rem.EventID)
	if err != nil || !fresh {
		return false, err // a repeat writes nothing
	}
	fp := dedup.Fingerprint(rem.Recipient, rem.Template, rem.BusinessKey)
	verdict, gerr := w.guard.Accept(ctx, rem.Recipient, fp, rem.EventID)
	if gerr != nil {
		w.cfg.Log.Printf("worker %s: dedup cache failed, sending %s anyway: %v", w.cfg.Name, rem.EventID, gerr)
	}
	state := StatePending
	if verdict == dedup.Duplicate || verdict == dedup.Capped {
		state = StateDropped
	}
	if err := insertIntent(ctx, tx, n, state, string(verdict)); err != nil {
		return false, err
	}
	return true, tx.Commit(ctx)
}

func insertIntent(ctx context.Context, tx pgx.Tx, n push.Notification, state, verdict string) error {
	_, err := tx.Exec(ctx, `INSERT INTO notif (event_id, channel, payment_id, intent, recipient, replace_id, state, verdict)
		VALUES ($1, $2, nullif($3, ''), nullif($4, ''), $5, nullif($6, ''), $7, nullif($8, ''))
		ON CONFLICT (event_id, channel) DO NOTHING`, n.EventID, ChannelPush, n.PaymentID, n.Intent, n.Recipient, n.ReplaceID, state, verdict)
	if err != nil {
		return fmt.Errorf("notification intent %s: %w", n.EventID, err)
	}
	return nil
}

// notify sends a PENDING notification and marks it SENT. A crash between the
// two sends it again on the next delivery; the replace id makes that copy
// land on top of the first.
func (w *Worker) notify(ctx context.Context, m message, n push.Notification) error {
	n.Sender = w.cfg.Name
	if !w.cfg.Guards.NotifRecord && m.pay != nil {
		if _, err := w.push.Send(ctx, n); err != nil {
			return err
		}
		return failpoint.Hit(AfterPushBeforeSent)
	}
	var state string
	err := w.pool.QueryRow(ctx, `SELECT state FROM notif WHERE event_id = $1 AND channel = $2`, m.eventID, ChannelPush).Scan(&state)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && state != StatePending) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("notification state %s: %w", m.eventID, err)
	}
	if _, err := w.push.Send(ctx, n); err != nil {
		return err
	}
	if err := failpoint.Hit(AfterPushBeforeSent); err != nil {
		return err
	}
	_, err = w.pool.Exec(ctx, `UPDATE notif SET state = $3, sent_by = $4 WHERE event_id = $1 AND channel = $2 AND state = $5`,
		m.eventID, ChannelPush, StateSent, w.cfg.Name, StatePending)
	if err != nil {
		return fmt.Errorf("mark sent %s: %w", m.eventID, err)
	}
	return nil
}

// deadLetter parks a record that can never be processed, with its reason.
// Keyed by its log position, so a redelivery parks it once.
func (w *Worker) deadLetter(ctx context.Context, r *kgo.Record, reason string) error {
	_, err := w.pool.Exec(ctx, `INSERT INTO dead_letters (topic, part, "offset", key, value, reason, worker)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (topic, part, "offset") DO NOTHING`,
		r.Topic, r.Partition, r.Offset, r.Key, r.Value, reason, w.cfg.Name)
	if err != nil {
		return fmt.Errorf("dead letter %s/%d@%d: %w", r.Topic, r.Partition, r.Offset, err)
	}
	w.cfg.Log.Printf("worker %s: dead-lettered %s/%d@%d: %s", w.cfg.Name, r.Topic, r.Partition, r.Offset, reason)
	return nil
}
