package streamjob

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Migrate creates the sink, the checkpoint store and the late-copy log.
//
// stream_sink holds absolute totals, SET (merchant, day) = total. tag is the
// barrier the sink had passed when it wrote the row (what a reader sees);
// recent is the same value while it can still matter to a restore and NULL
// after, so the partial index on it is sparse: it lists only keys written
// since the last checkpoint the sink heard completed, which is all the full
// flush's delete step has to read.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	for _, s := range []string{
		`CREATE TABLE IF NOT EXISTS stream_sink (
  merchant text NOT NULL,
  day      text NOT NULL,
  total    bigint NOT NULL,
  tag      bigint NOT NULL,
  recent   bigint,
  PRIMARY KEY (merchant, day)
)`,
		`CREATE INDEX IF NOT EXISTS stream_sink_recent ON stream_sink (recent) WHERE recent IS NOT NULL`,
		`CREATE TABLE IF NOT EXISTS stream_checkpoints (
  job         text NOT NULL,
  id          bigint NOT NULL,
  next_offset bigint NOT NULL,
  floor_ns    bigint NOT NULL,
  totals      jsonb NOT NULL,
  seen        jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (job, id)
)`,
		// One row per rejected copy, keyed by its input offset, so a replay
		// that rejects the same copy again does not count it twice.
		`CREATE TABLE IF NOT EXISTS stream_late (
  job          text NOT NULL,
  input_offset bigint NOT NULL,
  event_id     text NOT NULL,
  event_time   bigint NOT NULL,
  bound        bigint NOT NULL,
  rejected_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (job, input_offset)
)`,
	} {
		if _, err := pool.Exec(ctx, s); err != nil {
			return fmt.Errorf("streamjob: migrate: %w", err)
		}
	}
	return nil
}

// Checkpoint is one completed checkpoint: state and the input offset it
// reflects (the next record to read), saved in one row, so one INSERT is the
// atomic save.
type Checkpoint struct {
	ID         int64
	NextOffset int64
	Floor      int64
	Totals     map[Key]int64
	Seen       map[string]int64
}

type wireTotal struct {
	Key
	Total int64 `json:"total"`
}

// Save writes c in one statement and keeps the last few checkpoints.
func Save(ctx context.Context, pool *pgxpool.Pool, job string, c Checkpoint) error {
	totals := make([]wireTotal, 0, len(c.Totals))
	for k, v := range c.Totals {
		totals = append(totals, wireTotal{k, v})
	}
	tb, err := json.Marshal(totals)
	if err != nil {
		return err
	}
	sb, err := json.Marshal(c.Seen)
	if err != nil {
		return err
	}
	_, err = pool.Exec(ctx, `WITH saved AS (
  INSERT INTO stream_checkpoints (job, id, next_offset, floor_ns, totals, seen) VALUES ($1,$2,$3,$4,$5,$6)
)
DELETE FROM stream_checkpoints WHERE job = $1 AND id < $2 - 3`, job, c.ID, c.NextOffset, c.Floor, tb, sb)
	if err != nil {
		return fmt.Errorf("streamjob: save checkpoint %d: %w", c.ID, err)
	}
	return nil
}

// LoadLast returns the last completed checkpoint, or ok false when there is
// none (a fresh job starts from offset 0 with checkpoint id 0).
func LoadLast(ctx context.Context, pool *pgxpool.Pool, job string) (c Checkpoint, ok bool, err error) {
	var tb, sb []byte
	err = pool.QueryRow(ctx, `SELECT id, next_offset, floor_ns, totals, seen FROM stream_checkpoints
 WHERE job = $1 ORDER BY id DESC LIMIT 1`, job).Scan(&c.ID, &c.NextOffset, &c.Floor, &tb, &sb)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("streamjob: load checkpoint: %w", err)
	}
	var totals []wireTotal
	if err := json.Unmarshal(tb, &totals); err != nil {
		return c, false, fmt.Errorf("streamjob: checkpoint %d totals: %w", c.ID, err)
	}
	c.Totals = make(map[Key]int64, len(totals))
	for _, t := range totals {
		c.Totals[t.Key] = t.Total
	}
	if err := json.Unmarshal(sb, &c.Seen); err != nil {
		return c, false, fmt.Errorf("streamjob: checkpoint %d seen: %w", c.ID, err)
	}
	if c.Seen == nil {
		c.Seen = map[string]int64{}
	}
	return c, true, nil
}

// Sink is the job's output table.
type Sink struct {
	Pool *pgxpool.Pool
}

// Set writes one absolute total tagged with tag.
func (s Sink) Set(ctx context.Context, k Key, total, tag int64) error {
	_, err := s.Pool.Exec(ctx, `INSERT INTO stream_sink (merchant, day, total, tag, recent) VALUES ($1,$2,$3,$4,$4)
 ON CONFLICT (merchant, day) DO UPDATE SET total = excluded.total, tag = excluded.tag, recent = excluded.recent`,
		k.Merchant, k.Day, total, tag)
	if err != nil {
		return fmt.Errorf("streamjob: sink %v: %w", k, err)
	}
	return nil
}

// Rewrite is the full flush's first step: every restored key gets its
// restored value and tag c, in one statement.
func (s Sink) Rewrite(ctx context.Context, totals map[Key]int64, c int64) error {
	ms, ds, ts := make([]string, 0, len(totals)), make([]string, 0, len(totals)), make([]int64, 0, len(totals))
	for k, v := range totals {
		ms, ds, ts = append(ms, k.Merchant), append(ds, k.Day), append(ts, v)
	}
	_, err := s.Pool.Exec(ctx, `INSERT INTO stream_sink (merchant, day, total, tag, recent)
 SELECT m, d, t, $4, $4 FROM unnest($1::text[], $2::text[], $3::bigint[]) AS u(m, d, t)
 ON CONFLICT (merchant, day) DO UPDATE SET total = excluded.total, tag = excluded.tag, recent = excluded.recent`, ms, ds, ts, c)
	if err != nil {
		return fmt.Errorf("streamjob: flush rewrite: %w", err)
	}
	return nil
}

// DeleteUnknown is the flush's second and third steps: read the tag index
// for keys tagged c or later and delete those the restored state lacks.
func (s Sink) DeleteUnknown(ctx context.Context, totals map[Key]int64, c int64) (int, error) {
	rows, err := s.Pool.Query(ctx, `SELECT merchant, day FROM stream_sink WHERE recent IS NOT NULL AND recent >= $1`, c)
	if err != nil {
		return 0, fmt.Errorf("streamjob: flush scan: %w", err)
	}
	var ms, ds []string
	for rows.Next() {
		var k Key
		if err := rows.Scan(&k.Merchant, &k.Day); err != nil {
			rows.Close()
			return 0, err
		}
		if _, ok := totals[k]; !ok {
			ms, ds = append(ms, k.Merchant), append(ds, k.Day)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if len(ms) == 0 {
		return 0, nil
	}
	_, err = s.Pool.Exec(ctx, `DELETE FROM stream_sink s USING unnest($1::text[], $2::text[]) AS u(m, d)
 WHERE s.merchant = u.m AND s.day = u.d AND s.recent >= $3`, ms, ds, c)
	if err != nil {
		return 0, fmt.Errorf("streamjob: flush delete: %w", err)
	}
	return len(ms), nil
}

// Completed is the sink hearing that checkpoint c completed: keys tagged
// before c can no longer matter to a restore, so they leave the index.
func (s Sink) Completed(ctx context.Context, c int64) error {
	_, err := s.Pool.Exec(ctx, `UPDATE stream_sink SET recent = NULL WHERE recent IS NOT NULL AND recent < $1`, c)
	return err
}

// LogLate records a rejected copy for the batch recount; it reports whether
// this copy (this input offset) was new.
func LogLate(ctx context.Context, pool *pgxpool.Pool, job string, offset int64, id string, eventTime, bound int64) (bool, error) {
	tag, err := pool.Exec(ctx, `INSERT INTO stream_late (job, input_offset, event_id, event_time, bound) VALUES ($1,$2,$3,$4,$5)
 ON CONFLICT DO NOTHING`, job, offset, id, eventTime, bound)
	if err != nil {
		return false, fmt.Errorf("streamjob: late log: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}
