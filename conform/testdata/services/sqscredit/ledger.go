package main

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// ledger is the credits table and the inbox of event ids credited, in
// one Postgres shared by every instance.
type ledger struct {
	pool *pgxpool.Pool
	work time.Duration
}

const schema = `
CREATE TABLE IF NOT EXISTS inbox (event_id text PRIMARY KEY);
CREATE TABLE IF NOT EXISTS credits (id bigserial PRIMARY KEY, payment_id text NOT NULL, event_id text NOT NULL, amount bigint NOT NULL, merchant text NOT NULL)`

func openLedger(ctx context.Context, dsn string, work time.Duration) (*ledger, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, err
	}
	// Two instances starting at once race on CREATE TABLE IF NOT EXISTS: a
	// lock held to the end of the statements' one implicit transaction
	// makes the second wait until the first's tables are committed.
	if _, err := pool.Exec(ctx, "SELECT pg_advisory_xact_lock(42);"+schema); err != nil {
		pool.Close()
		return nil, fmt.Errorf("create the ledger's tables: %v", err)
	}
	return &ledger{pool: pool, work: work}, nil
}

func (l *ledger) close() { l.pool.Close() }

// credit inserts m's credit after the work it takes; with a key, only if
// the key enters the inbox in the same transaction (a copy finds it there
// and is skipped). The correct key is the event id.
func (l *ledger) credit(ctx context.Context, m message, key string) error {
	// The database calls outlive a SIGTERM: a shutdown finishes the
	// credit it began.
	db := context.WithoutCancel(ctx)
	tx, err := l.pool.Begin(db)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if key != "" {
		tag, err := tx.Exec(db, "INSERT INTO inbox (event_id) VALUES ($1) ON CONFLICT DO NOTHING", key)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			log.Printf("already credited: %s (payment %s): skipped", m.EventID, m.PaymentID)
			return nil
		}
	}
	if _, err := tx.Exec(db, "INSERT INTO credits (payment_id, event_id, amount, merchant) VALUES ($1, $2, $3, $4)", m.PaymentID, m.EventID, m.Amount, m.Merchant); err != nil {
		return err
	}
	select {
	case <-time.After(l.work):
	case <-ctx.Done():
		time.Sleep(l.work)
	}
	if err := tx.Commit(db); err != nil {
		return err
	}
	log.Printf("credited %s (payment %s, %d)", m.EventID, m.PaymentID, m.Amount)
	return nil
}
