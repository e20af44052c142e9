package ledger

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Payment states.
const (
	Pending   = "PENDING"
	Unknown   = "UNKNOWN"
	Succeeded = "SUCCEEDED"
	Failed    = "FAILED"
	Void      = "VOID"
)

// Refund states (refund_state column).
const (
	RefundRequested = "REQUESTED"
	RefundUnknown   = "UNKNOWN"
	Refunded        = "REFUNDED"
)

// allowed lists each state's legal successors.
var allowed = map[string][]string{
	Pending: {Unknown, Succeeded, Failed},
	Unknown: {Succeeded, Failed},
}

// Allowed reports whether from -> to is a legal move.
func Allowed(from, to string) bool {
	for _, s := range allowed[from] {
		if s == to {
			return true
		}
	}
	return false
}

// ErrUnknownOutcome wraps a Commit error that is not a server error: the
// transaction may or may not have committed (docs/PITFALLS.md#pgx).
var ErrUnknownOutcome = errors.New("ledger: commit outcome unknown")

// ErrConflict is a unique violation on insert.
var ErrConflict = errors.New("ledger: unique conflict")

// Payment is one payments row.
type Payment struct {
	ID, Caller, Key, Fingerprint, Currency, Merchant, Method, OrderID string
	Amount                                                            int64
	State, PSPKey, PSPCharge                                          string
	DeadlineAt                                                        int64
	RefundState, RefundKey, RefundID                                  string
	RefundAmount                                                      int64
}

// Ledger wraps a pool.
type Ledger struct {
	Pool *pgxpool.Pool
}

const cols = `payment_id, caller_id, client_key, coalesce(fingerprint,''), coalesce(amount,0), coalesce(currency,''),
 coalesce(merchant,''), coalesce(payment_method,''), coalesce(order_id,''), state, coalesce(psp_key,''), coalesce(psp_charge,''),
 coalesce(deadline_at,0), coalesce(refund_state,''), coalesce(refund_key,''), coalesce(refund_id,''), coalesce(refund_amount,0)`

func scan(row pgx.Row) (*Payment, error) {
	var p Payment
	err := row.Scan(&p.ID, &p.Caller, &p.Key, &p.Fingerprint, &p.Amount, &p.Currency, &p.Merchant, &p.Method, &p.OrderID,
		&p.State, &p.PSPKey, &p.PSPCharge, &p.DeadlineAt, &p.RefundState, &p.RefundKey, &p.RefundID, &p.RefundAmount)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// Get reads a payment by id; nil when absent.
func (l *Ledger) Get(ctx context.Context, id string) (*Payment, error) {
	return scan(l.Pool.QueryRow(ctx, `SELECT `+cols+` FROM payments WHERE payment_id = $1`, id))
}

// GetByKey reads the payment of (caller, key); nil when absent. Without the
// durable guard several rows may match: the newest answers.
func (l *Ledger) GetByKey(ctx context.Context, caller, key string) (*Payment, error) {
	return scan(l.Pool.QueryRow(ctx, `SELECT `+cols+` FROM payments WHERE caller_id = $1 AND client_key = $2 ORDER BY created_at DESC LIMIT 1`, caller, key))
}

// InsertPending inserts a PENDING row. On a unique conflict it returns
// ErrConflict and the row that holds (caller, key) or the id.
func (l *Ledger) InsertPending(ctx context.Context, p Payment) (*Payment, error) {
	tag, err := l.Pool.Exec(ctx, `INSERT INTO payments (payment_id, caller_id, client_key, fingerprint, amount, currency, merchant,
 payment_method, order_id, state, psp_key, deadline_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,'PENDING',$10,$11)
 ON CONFLICT DO NOTHING`, p.ID, p.Caller, p.Key, p.Fingerprint, p.Amount, p.Currency, p.Merchant, p.Method, p.OrderID, p.PSPKey, p.DeadlineAt)
	if err != nil {
		return nil, fmt.Errorf("ledger: insert pending %s: %w", p.ID, err)
	}
	if tag.RowsAffected() == 1 {
		return nil, nil
	}
	held, err := l.GetByKey(ctx, p.Caller, p.Key)
	if err == nil && held == nil {
		held, err = l.Get(ctx, p.ID)
	}
	if err != nil {
		return nil, err
	}
	return held, ErrConflict
}

// InsertVoid inserts the VOID row of RESOLVE under the durable guard. It
// returns ErrConflict and the holding row when (caller, key) is taken.
func (l *Ledger) InsertVoid(ctx context.Context, id, caller, key string) (*Payment, error) {
	tag, err := l.Pool.Exec(ctx, `INSERT INTO payments (payment_id, caller_id, client_key, state) VALUES ($1,$2,$3,'VOID') ON CONFLICT DO NOTHING`, id, caller, key)
	if err != nil {
		return nil, fmt.Errorf("ledger: insert void %s: %w", id, err)
	}
	if tag.RowsAffected() == 1 {
		return nil, nil
	}
	held, err := l.GetByKey(ctx, caller, key)
	if err != nil {
		return nil, err
	}
	return held, ErrConflict
}

// Move is one compare-and-set of a payment's state.
type Move struct {
	ID     string
	From   []string // states the move is allowed from
	To     string
	Charge string // PSP charge id, when known
	// Blind drops the compare-and-set (mutant blind-webhook-update) and
	// EventSuffix makes the outbox event id fresh per answer.
	Blind       bool
	EventSuffix string
	// InboxEvent, when set, is a webhook event id recorded in the same
	// transaction; a repeat of it makes the move a no-op (Dropped).
	InboxEvent string
}

// Result says what Apply did.
type Result struct {
	Moved   bool // the compare-and-set matched and committed
	Dropped bool // the inbox had seen InboxEvent: nothing done
}

// EventID is the derived outbox event id of a payment's success.
func EventID(paymentID string) string { return paymentID + ":SUCCEEDED" }

// Apply runs the move in one transaction with its journal entries and, for
// SUCCEEDED, its outbox row. It returns false when the compare-and-set found
// the row in another state (nothing written). A commit error that is not a
// server error is ErrUnknownOutcome: read the row to learn what happened.
func (l *Ledger) Apply(ctx context.Context, m Move, before func() error) (bool, error) {
	r, err := l.ApplyInbox(ctx, m, before)
	return r.Moved, err
}

// ApplyInbox is Apply that also reports an inbox drop.
func (l *Ledger) ApplyInbox(ctx context.Context, m Move, before func() error) (Result, error) {
	for _, f := range m.From {
		if !Allowed(f, m.To) && !m.Blind {
			return Result{}, fmt.Errorf("ledger: move %s -> %s is not allowed", f, m.To)
		}
	}
	if m.InboxEvent == "" && before == nil && !m.Blind {
		return l.applyOne(ctx, m)
	}
	tx, err := l.Pool.Begin(ctx)
	if err != nil {
		return Result{}, err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit this is a no-op
	if m.InboxEvent != "" {
		fresh, err := l.InboxInsert(ctx, tx, m.InboxEvent, m.ID)
		if err != nil {
			return Result{}, fmt.Errorf("ledger: inbox %s: %w", m.InboxEvent, err)
		}
		if !fresh {
			return Result{Dropped: true}, nil
		}
	}
	var amount int64
	var merchant, currency string
	q := `UPDATE payments SET state = $2, psp_charge = coalesce(nullif($3,''), psp_charge), updated_at = now()
 WHERE payment_id = $1 AND state = ANY($4) RETURNING coalesce(amount,0), coalesce(merchant,''), coalesce(currency,'')`
	args := []any{m.ID, m.To, m.Charge, m.From}
	if m.Blind {
		q = `UPDATE payments SET state = $2, psp_charge = coalesce(nullif($3,''), psp_charge), updated_at = now()
 WHERE payment_id = $1 RETURNING coalesce(amount,0), coalesce(merchant,''), coalesce(currency,'')`
		args = args[:3]
	}
	err = tx.QueryRow(ctx, q, args...).Scan(&amount, &merchant, &currency)
	if errors.Is(err, pgx.ErrNoRows) {
		if m.InboxEvent != "" {
			// Keep the inbox entry so a repeat is dropped; the state already moved.
			_, err := commit(ctx, tx)
			return Result{}, err
		}
		return Result{}, nil
	}
	if err != nil {
		return Result{}, fmt.Errorf("ledger: move %s -> %s: %w", m.ID, m.To, err)
	}
	if m.To == Succeeded {
		if _, err := tx.Exec(ctx, `INSERT INTO journal_entries (payment_id, account, amount) VALUES ($1,'psp_clearing',$2), ($1,'merchant:'||$3,-$2)`,
			m.ID, amount, merchant); err != nil {
			return Result{}, fmt.Errorf("ledger: journal %s: %w", m.ID, err)
		}
		ev := EventID(m.ID) + m.EventSuffix
		if _, err := tx.Exec(ctx, `INSERT INTO outbox (event_id, payment_id, merchant, amount, currency) VALUES ($1,$2,$3,$4,$5)`,
			ev, m.ID, merchant, amount, currency); err != nil {
			return Result{}, fmt.Errorf("ledger: outbox %s: %w", ev, err)
		}
	}
	if before != nil {
		if err := before(); err != nil {
			return Result{}, err
		}
	}
	ok, err := commit(ctx, tx)
	return Result{Moved: ok}, err
}

// applyOne is the move as one statement: the compare-and-set, its journal
// entries and its outbox row in data-modifying CTEs, which Postgres commits
// as one transaction in one round trip instead of five.
func (l *Ledger) applyOne(ctx context.Context, m Move) (Result, error) {
	var n int
	err := l.Pool.QueryRow(ctx, `WITH moved AS (
  UPDATE payments SET state = $2, psp_charge = coalesce(nullif($3,''), psp_charge), updated_at = now()
  WHERE payment_id = $1 AND state = ANY($4)
  RETURNING payment_id, coalesce(amount,0) AS amount, coalesce(merchant,'') AS merchant, coalesce(currency,'') AS currency
), journal AS (
  INSERT INTO journal_entries (payment_id, account, amount)
  SELECT payment_id, 'psp_clearing', amount FROM moved WHERE $2 = 'SUCCEEDED'
  UNION ALL SELECT payment_id, 'merchant:' || merchant, -amount FROM moved WHERE $2 = 'SUCCEEDED'
), box AS (
  INSERT INTO outbox (event_id, payment_id, merchant, amount, currency)
  SELECT payment_id || ':SUCCEEDED' || $5, payment_id, merchant, amount, currency FROM moved WHERE $2 = 'SUCCEEDED'
)
SELECT count(*) FROM moved`, m.ID, m.To, m.Charge, m.From, m.EventSuffix).Scan(&n)
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			return Result{}, fmt.Errorf("ledger: move %s -> %s: %w", m.ID, m.To, err)
		}
		// The statement may have committed before its reply was lost.
		return Result{}, fmt.Errorf("%w: move %s -> %s: %v", ErrUnknownOutcome, m.ID, m.To, err)
	}
	return Result{Moved: n == 1}, nil
}

func commit(ctx context.Context, tx pgx.Tx) (bool, error) {
	if err := tx.Commit(ctx); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			return false, fmt.Errorf("ledger: commit: %w", err)
		}
		return false, fmt.Errorf("%w: %v", ErrUnknownOutcome, err)
	}
	return true, nil
}

// SetRefund moves refund_state by compare-and-set (from "" means no refund yet).
func (l *Ledger) SetRefund(ctx context.Context, id, from, to, key, refundID string) (bool, error) {
	return l.SetRefundAmount(ctx, id, from, to, key, refundID, 0)
}

// SetRefundAmount is SetRefund that also records the refund's amount (0 keeps it).
func (l *Ledger) SetRefundAmount(ctx context.Context, id, from, to, key, refundID string, amount int64) (bool, error) {
	tag, err := l.Pool.Exec(ctx, `UPDATE payments SET refund_state = $3, refund_key = coalesce(nullif($4,''), refund_key),
 refund_id = coalesce(nullif($5,''), refund_id), refund_amount = coalesce(nullif($6,0), refund_amount), updated_at = now()
 WHERE payment_id = $1 AND state = 'SUCCEEDED' AND coalesce(refund_state,'') = $2`, id, from, to, key, refundID, amount)
	if err != nil {
		return false, fmt.Errorf("ledger: refund %s %s -> %s: %w", id, from, to, err)
	}
	return tag.RowsAffected() == 1, nil
}

// Sweep lists payments the resolver must settle: UNKNOWN, and PENDING whose
// deadline (tier clock, unix ns) plus margin is before now; and refunds not
// settled. At most limit rows, oldest first.
func (l *Ledger) Sweep(ctx context.Context, nowNanos, marginNanos int64, limit int) ([]Payment, error) {
	out, err := l.payments(ctx, `SELECT `+cols+` FROM payments
 WHERE state = 'UNKNOWN' OR (state = 'PENDING' AND deadline_at + $2 < $1) OR refund_state IN ('REQUESTED','UNKNOWN')
 ORDER BY updated_at LIMIT $3`, nowNanos, marginNanos, limit)
	if err != nil {
		return nil, fmt.Errorf("ledger: sweep: %w", err)
	}
	return out, nil
}

// All returns every payment, for assertions.
func (l *Ledger) All(ctx context.Context) ([]Payment, error) {
	return l.payments(ctx, `SELECT `+cols+` FROM payments ORDER BY created_at, payment_id`)
}

// payments runs a query selecting cols and scans every row.
func (l *Ledger) payments(ctx context.Context, sql string, args ...any) ([]Payment, error) {
	rows, err := l.Pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Payment
	for rows.Next() {
		p, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *p)
	}
	return out, rows.Err()
}

// OutboxRow is one outbox row.
type OutboxRow struct {
	EventID, PaymentID, Merchant, Currency string
	Amount                                 int64
}

// Outbox returns every outbox row, for assertions and ground truth.
func (l *Ledger) Outbox(ctx context.Context) ([]OutboxRow, error) {
	rows, err := l.Pool.Query(ctx, `SELECT event_id, payment_id, merchant, amount, currency FROM outbox ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []OutboxRow
	for rows.Next() {
		var r OutboxRow
		if err := rows.Scan(&r.EventID, &r.PaymentID, &r.Merchant, &r.Amount, &r.Currency); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// InboxInsert records a webhook event id inside tx; false when the
// event was seen before.
func (l *Ledger) InboxInsert(ctx context.Context, tx pgx.Tx, eventID, paymentID string) (bool, error) {
	tag, err := tx.Exec(ctx, `INSERT INTO webhook_inbox (event_id, payment_id) VALUES ($1,$2) ON CONFLICT DO NOTHING`, eventID, paymentID)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}
