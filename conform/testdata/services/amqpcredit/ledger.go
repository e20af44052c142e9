package main

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The credits and, for the dedup, an inbox of the event ids credited: a
// credit and its inbox row commit in one transaction, so a crash leaves
// both or neither.
const schema = `CREATE TABLE IF NOT EXISTS inbox (event_id text PRIMARY KEY);
CREATE TABLE IF NOT EXISTS credits (id bigserial PRIMARY KEY, payment_id text NOT NULL, event_id text NOT NULL, amount bigint NOT NULL, merchant text NOT NULL)`

type ledger struct {
	pool *pgxpool.Pool
	// work is how long a credit takes before it commits (a call to
	// another service): the window a kill inside its processing lands in.
	work time.Duration
}

func openLedger(ctx context.Context, dsn string, work time.Duration) (*ledger, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, err
	}
	// Two instances starting at once race on CREATE TABLE IF NOT EXISTS: a
	// lock held to the end of the statements' one implicit transaction
	// makes the second wait until the first's tables are committed. (A
	// session lock released by the last statement let the second in before
	// that commit: both created the table, and one failed on pg_type's
	// unique index, as sqscredit's ledger learnt first.)
	if _, err := pool.Exec(ctx, "SELECT pg_advisory_xact_lock(42);"+schema); err != nil {
		pool.Close()
		return nil, err
	}
	return &ledger{pool: pool, work: work}, nil
}

// credit records m's credit; with dedup, only if its event id is not in
// the inbox, the inbox row in the same transaction. It reports whether it
// credited.
func (l *ledger) credit(ctx context.Context, m message, dedup bool) (bool, error) {
	tx, err := l.pool.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if dedup {
		tag, err := tx.Exec(ctx, "INSERT INTO inbox (event_id) VALUES ($1) ON CONFLICT DO NOTHING", m.EventID)
		if err != nil {
			return false, err
		}
		if tag.RowsAffected() == 0 {
			return false, nil
		}
	}
	if _, err := tx.Exec(ctx, "INSERT INTO credits (payment_id, event_id, amount, merchant) VALUES ($1, $2, $3, $4)", m.PaymentID, m.EventID, m.Amount, m.Merchant); err != nil {
		return false, err
	}
	time.Sleep(l.work)
	return true, tx.Commit(ctx)
}

// serve answers GET /credits?payment_id= with the payment's credits.
func (l *ledger) serve(w http.ResponseWriter, r *http.Request) {
	rows, err := l.pool.Query(r.Context(), "SELECT amount FROM credits WHERE payment_id = $1 ORDER BY id", r.URL.Query().Get("payment_id"))
	var amounts []int64
	if err == nil {
		amounts, err = pgx.CollectRows(rows, pgx.RowTo[int64])
	}
	if err != nil {
		log.Printf("read credits: %v", err)
		http.Error(w, `{"error": "ledger"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	out := "["
	for i, a := range amounts {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf(`{"amount": %d}`, a)
	}
	fmt.Fprintf(w, `{"data": %s]}`+"\n", out)
}
