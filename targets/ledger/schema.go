// Package ledger is the reference stack's Postgres ledger: payments (the
// durable guard, UNIQUE (caller_id, client_key)), journal entries and the
// transactional outbox. Every state move is a compare-and-set along the
// allowed transitions, committed in one transaction with its journal entries
// and its outbox row.
package ledger

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Options shape the schema. DurableGuard false drops the UNIQUE (caller_id,
// client_key) constraint: the mutant no-durable-guard-random-id (B4).
type Options struct {
	NoDurableGuard bool
}

// Migrate creates the tables if they do not exist (idempotent). The outbox
// table is the shape fixed in the team contract, read by the relay.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return MigrateWith(ctx, pool, Options{})
}

// MigrateWith is Migrate with schema options.
func MigrateWith(ctx context.Context, pool *pgxpool.Pool, o Options) error {
	unique := ",\n  UNIQUE (caller_id, client_key)"
	if o.NoDurableGuard {
		unique = ""
	}
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS payments (
  payment_id   text PRIMARY KEY,
  caller_id    text NOT NULL,
  client_key   text NOT NULL,
  fingerprint  text,
  amount       bigint,
  currency     char(3),
  merchant     text,
  payment_method text,
  order_id     text,
  state        text NOT NULL,
  psp_key      text,
  psp_charge   text,
  deadline_at  bigint,
  refund_state text,
  refund_key   text,
  refund_id    text,
  refund_amount bigint,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()` + unique + `
)`,
		`CREATE INDEX IF NOT EXISTS payments_state ON payments (state)`,
		`CREATE TABLE IF NOT EXISTS journal_entries (
  id         bigserial PRIMARY KEY,
  payment_id text NOT NULL,
  account    text NOT NULL,
  amount     bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
)`,
		`CREATE TABLE IF NOT EXISTS outbox (
  id         bigserial PRIMARY KEY,
  event_id   text NOT NULL UNIQUE,
  payment_id text NOT NULL,
  merchant   text NOT NULL,
  amount     bigint NOT NULL,
  currency   text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
)`,
		`CREATE TABLE IF NOT EXISTS webhook_inbox (
  event_id    text PRIMARY KEY,
  payment_id  text,
  received_at timestamptz NOT NULL DEFAULT now()
)`,
	}
	for _, s := range stmts {
		if _, err := pool.Exec(ctx, s); err != nil {
			return fmt.Errorf("ledger: migrate: %w", err)
		}
	}
	return nil
}
