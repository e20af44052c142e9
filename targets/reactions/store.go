// Package reactions is the reference stack's likes service (SCENARIOS.md C2,
// the likes branch): devices send LIKE and UNLIKE carrying a counter from
// their own journal, and a write applies only if its counter is above the
// device's high-water mark for the item, a Postgres row that never expires.
// An old write that arrives after a newer one (a resend on a slow path) is
// harmless; ordering by arrival or by the phone's clock is not (the mutants).
package reactions

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemcheck/idemcheck/targets/mutant"
)

// Actions a device sends, and the states they set.
const (
	Like    = "like"
	Unlike  = "unlike"
	Liked   = "liked"
	Unliked = "unliked"
)

// schema: the high-water mark is keyed by (device, item), not by device
// alone: a mark per device would drop that device's reordered writes to
// other items. It has no expiry column and no TTL, on purpose: a mark that
// expires lets a resend older than it apply again ("the counter
// must outlive anything it's stored next to"). arrivals is the ground truth
// of what came in, in which order, and what it did.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS reaction_hwm (
  device  text NOT NULL,
  item    text NOT NULL,
  counter bigint NOT NULL,
  PRIMARY KEY (device, item)
)`,
	`CREATE TABLE IF NOT EXISTS reaction_state (
  item       text PRIMARY KEY,
  value      text NOT NULL,
  device     text NOT NULL,
  counter    bigint NOT NULL,
  phone_time bigint NOT NULL
)`,
	`CREATE TABLE IF NOT EXISTS reaction_arrivals (
  seq        bigserial PRIMARY KEY,
  device     text NOT NULL,
  item       text NOT NULL,
  value      text NOT NULL,
  counter    bigint NOT NULL,
  phone_time bigint NOT NULL,
  applied    boolean NOT NULL
)`,
}

// Migrate creates the tables.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	for _, s := range schema {
		if _, err := pool.Exec(ctx, s); err != nil {
			return fmt.Errorf("reactions: migrate: %w", err)
		}
	}
	return nil
}

// Write is one LIKE or UNLIKE as the device journaled it: a resend carries the
// same counter and phone time as the first send.
type Write struct {
	Device  string `json:"device"`
	Item    string `json:"item"`
	Action  string `json:"action"`
	Counter int64  `json:"counter"`
	// PhoneTime is the phone's clock at the tap, unix nanoseconds. The
	// reference never orders by it; the order-by-phone-clock mutant does.
	PhoneTime int64 `json:"phone_time"`
}

// Value is the state the write sets.
func (w Write) Value() string {
	if w.Action == Like {
		return Liked
	}
	return Unliked
}

// Check names the first bad field.
func (w Write) Check() error {
	switch {
	case w.Device == "":
		return errors.New("device: missing")
	case w.Item == "":
		return errors.New("item: missing")
	case w.Action != Like && w.Action != Unlike:
		return fmt.Errorf("action: %q is not like or unlike", w.Action)
	case w.Counter <= 0:
		return errors.New("counter: must be a positive integer")
	}
	return nil
}

// Result is what a write did and the item's state after it.
type Result struct {
	Applied bool   `json:"applied"`
	State   string `json:"state"`
}

// Apply runs one arrival of w in one transaction: the guard (or the mutant's
// ordering), the state, and the arrival row.
func Apply(ctx context.Context, pool *pgxpool.Pool, w Write, ms mutant.Set) (Result, error) {
	var res Result
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var err error
		if res.Applied, err = guard(ctx, tx, w, ms); err != nil {
			return err
		}
		if res.Applied && !ms.On(mutant.OrderByPhoneClock) {
			// The guard (or its absence) decided; write the absolute value.
			if _, err := tx.Exec(ctx, `INSERT INTO reaction_state (item, value, device, counter, phone_time) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (item) DO UPDATE SET value = EXCLUDED.value, device = EXCLUDED.device, counter = EXCLUDED.counter, phone_time = EXCLUDED.phone_time`,
				w.Item, w.Value(), w.Device, w.Counter, w.PhoneTime); err != nil {
				return err
			}
		}
		if res.State, err = state(ctx, tx, w.Item); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO reaction_arrivals (device, item, value, counter, phone_time, applied) VALUES ($1, $2, $3, $4, $5, $6)`,
			w.Device, w.Item, w.Value(), w.Counter, w.PhoneTime, res.Applied)
		return err
	})
	if err != nil {
		return Result{}, fmt.Errorf("reactions: apply %s/%d: %w", w.Device, w.Counter, err)
	}
	return res, nil
}

// guard decides whether w applies. The reference raises the high-water mark
// only from below, so of two copies or two reordered writes only the newer
// counter passes; the row lock on the mark serializes one device's writes.
func guard(ctx context.Context, tx pgx.Tx, w Write, ms mutant.Set) (bool, error) {
	switch {
	case ms.On(mutant.OrderByArrival):
		return true, nil
	case ms.On(mutant.OrderByPhoneClock):
		// Last writer by the phone's timestamp: a clock that stepped back
		// makes the newer tap look older.
		tag, err := tx.Exec(ctx, `INSERT INTO reaction_state (item, value, device, counter, phone_time) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (item) DO UPDATE SET value = EXCLUDED.value, device = EXCLUDED.device, counter = EXCLUDED.counter, phone_time = EXCLUDED.phone_time
WHERE reaction_state.phone_time < EXCLUDED.phone_time`, w.Item, w.Value(), w.Device, w.Counter, w.PhoneTime)
		return tag.RowsAffected() == 1, err
	}
	tag, err := tx.Exec(ctx, `INSERT INTO reaction_hwm (device, item, counter) VALUES ($1, $2, $3)
ON CONFLICT (device, item) DO UPDATE SET counter = EXCLUDED.counter WHERE reaction_hwm.counter < EXCLUDED.counter`,
		w.Device, w.Item, w.Counter)
	return tag.RowsAffected() == 1, err
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func state(ctx context.Context, q querier, item string) (string, error) {
	var v string
	err := q.QueryRow(ctx, `SELECT value FROM reaction_state WHERE item = $1`, item).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return Unliked, nil // never liked
	}
	return v, err
}

// State reads an item's state: the ground truth a harness reads at quiescence.
func State(ctx context.Context, pool *pgxpool.Pool, item string) (string, error) {
	return state(ctx, pool, item)
}

// HighWater reads a device's mark for an item (0 when it has none).
func HighWater(ctx context.Context, pool *pgxpool.Pool, device, item string) (int64, error) {
	var c int64
	err := pool.QueryRow(ctx, `SELECT counter FROM reaction_hwm WHERE device = $1 AND item = $2`, device, item).Scan(&c)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	return c, err
}

// Arrival is one write as it reached the service, in arrival order.
type Arrival struct {
	Seq       int64
	Device    string
	Value     string
	Counter   int64
	PhoneTime int64
	Applied   bool
}

// Arrivals lists an item's arrivals in the order they were logged (one
// row per arrival, written in the arrival's own transaction).
func Arrivals(ctx context.Context, pool *pgxpool.Pool, item string) ([]Arrival, error) {
	rows, err := pool.Query(ctx, `SELECT seq, device, value, counter, phone_time, applied FROM reaction_arrivals WHERE item = $1 ORDER BY seq`, item)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Arrival, error) {
		var a Arrival
		err := r.Scan(&a.Seq, &a.Device, &a.Value, &a.Counter, &a.PhoneTime, &a.Applied)
		return a, err
	})
}
