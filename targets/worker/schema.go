// Package worker consumes payment events and credits merchants once. Each poll
// is one batch: one Postgres transaction holds the batch's inbox entries,
// credits and notification intents; the pushes go out after the commit,
// concurrently (while the next batch's transaction runs), and again on every
// redelivery while an intent is PENDING; the batch's Kafka offsets are
// committed last. A repeat is born at every step, and each step's repeat is
// absorbed by the step after.
package worker

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// schema is the worker's own state, next to the ledger in the same database.
// credits has no unique key on purpose: it is the ground truth of what was
// applied, so a mutant's double credit shows as two rows.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS processed (
  event_id text PRIMARY KEY,
  worker   text NOT NULL,
  at       timestamptz NOT NULL DEFAULT now()
)`,
	`CREATE TABLE IF NOT EXISTS merchant_balances (
  merchant text PRIMARY KEY,
  balance  bigint NOT NULL
)`,
	`CREATE TABLE IF NOT EXISTS credits (
  id         bigserial PRIMARY KEY,
  event_id   text NOT NULL,
  payment_id text NOT NULL,
  merchant   text NOT NULL,
  amount     bigint NOT NULL,
  worker     text NOT NULL,
  call_ns    bigint NOT NULL,
  return_ns  bigint NOT NULL
)`,
	`CREATE TABLE IF NOT EXISTS notif (
  event_id   text NOT NULL,
  channel    text NOT NULL,
  payment_id text,
  intent     text,
  recipient  text NOT NULL,
  replace_id text,
  state      text NOT NULL,
  verdict    text,
  sent_by    text,
  PRIMARY KEY (event_id, channel)
)`,
	`CREATE TABLE IF NOT EXISTS dead_letters (
  id        bigserial PRIMARY KEY,
  topic     text NOT NULL,
  part      int NOT NULL,
  "offset"  bigint NOT NULL,
  key       bytea,
  value     bytea,
  reason    text NOT NULL,
  worker    text NOT NULL,
  at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (topic, part, "offset")
)`,
}

// Notification states.
const (
	StatePending = "PENDING"
	StateSent    = "SENT"
	// StateDropped: the logical-dedup guard or the per-user cap held the
	// message back; verdict says which.
	StateDropped = "DROPPED"
)

// ChannelPush is the only channel the reference worker sends on.
const ChannelPush = "push"

// Migrate creates the worker's tables. It takes an advisory lock so workers
// starting together do not race on CREATE TABLE IF NOT EXISTS.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("worker: migrate: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('idemcheck-worker-schema'))`); err != nil {
		return fmt.Errorf("worker: migrate: lock: %w", err)
	}
	for _, s := range schema {
		if _, err := tx.Exec(ctx, s); err != nil {
			return fmt.Errorf("worker: migrate: %w", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("worker: migrate: commit: %w", err)
	}
	return nil
}
