package mrec

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// DropSlot drops slot name on dsn if it exists, retrying while a walsender
// still holds it (it notices a closed connection within moments).
func DropSlot(ctx context.Context, dsn, name string, within time.Duration) error {
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer c.Close(context.WithoutCancel(ctx))
	deadline := time.Now().Add(within)
	for {
		var exists, active bool
		var pid *int32
		err := c.QueryRow(ctx, `SELECT true, active, active_pid FROM pg_replication_slots WHERE slot_name = $1`, name).Scan(&exists, &active, &pid)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if !active {
			_, err = c.Exec(ctx, `SELECT pg_drop_replication_slot($1)`, name)
			if err == nil {
				return nil
			}
		} else if pid != nil && time.Now().After(deadline.Add(-within/2)) {
			// The walsender is stuck behind a link that holds its socket:
			// end it, it belongs to this run's replication.
			_, _ = c.Exec(ctx, `SELECT pg_terminate_backend($1)`, *pid)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("mrec: slot %s still held on %s after %v: %v", name, dsn, within, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
