package mrec

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Receiver applies the peer's items to its Region by last writer wins.
type Receiver struct {
	Pool *pgxpool.Pool
	Log  *log.Logger

	Applied, Won, Lost, Conflicts atomic.Int64

	once   sync.Once
	upsert string
	err    error
	mu     sync.Mutex
	lags   []time.Duration // ship-to-apply, newest last, at most maxLags
}

const maxLags = 10000

// Stats is what a spec and the lag benchmark read.
type Stats struct {
	Applied   int64   `json:"applied"`   // items received and applied (or found not newer)
	Won       int64   `json:"won"`       // items that replaced or created the local row
	Lost      int64   `json:"lost"`      // items older than the local row: dropped by LWW
	Conflicts int64   `json:"conflicts"` // items refused by another unique key
	LagsNs    []int64 `json:"lags_ns"`   // ship-to-apply of each item
}

// Snapshot returns the counters and the observed lags.
func (r *Receiver) Snapshot() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := Stats{Applied: r.Applied.Load(), Won: r.Won.Load(), Lost: r.Lost.Load(), Conflicts: r.Conflicts.Load()}
	for _, l := range r.lags {
		st.LagsNs = append(st.LagsNs, int64(l))
	}
	return st
}

// prepare builds the upsert from the table's own columns: the item replaces
// the row only when it is newer by (updated_at, state), the tie broken by
// state so both Regions pick the same winner.
func (r *Receiver) prepare(ctx context.Context) error {
	r.once.Do(func() {
		rows, err := r.Pool.Query(ctx, `SELECT column_name FROM information_schema.columns
 WHERE table_schema = current_schema() AND table_name = 'payments' AND column_name <> 'payment_id' ORDER BY ordinal_position`)
		if err != nil {
			r.err = err
			return
		}
		defer rows.Close()
		var set []string
		for rows.Next() {
			var c string
			if r.err = rows.Scan(&c); r.err != nil {
				return
			}
			set = append(set, fmt.Sprintf("%q = EXCLUDED.%q", c, c))
		}
		if r.err = rows.Err(); r.err != nil {
			return
		}
		if len(set) == 0 {
			r.err = errors.New("mrec: no payments table in the current schema")
			return
		}
		r.upsert = `INSERT INTO payments SELECT * FROM json_populate_record(NULL::payments, $1::json)
 ON CONFLICT (payment_id) DO UPDATE SET ` + strings.Join(set, ", ") + `
 WHERE (payments.updated_at, payments.state) < (EXCLUDED.updated_at, EXCLUDED.state)`
	})
	return r.err
}

// Serve accepts senders on ln until ctx ends.
func (r *Receiver) Serve(ctx context.Context, ln net.Listener) {
	go func() {
		<-ctx.Done()
		_ = ln.Close()
	}()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			if err := r.handle(ctx, c); err != nil && ctx.Err() == nil {
				r.Log.Printf("mrec: receive: %v", err)
			}
		}()
	}
}

// handle applies each item, then acknowledges its LSN; an item that could
// not be applied closes the connection unacknowledged, so it comes again.
func (r *Receiver) handle(ctx context.Context, c net.Conn) error {
	if err := r.prepare(ctx); err != nil {
		return err
	}
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var it Item
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			return fmt.Errorf("bad item: %w", err)
		}
		if err := r.apply(ctx, it); err != nil {
			return err
		}
		if _, err := c.Write([]byte(it.LSN + "\n")); err != nil {
			return err
		}
	}
	return sc.Err()
}

func (r *Receiver) apply(ctx context.Context, it Item) error {
	if len(it.Row) == 0 || string(it.Row) == "null" {
		return nil // the row is gone at the source; payments are never deleted
	}
	tag, err := r.Pool.Exec(ctx, r.upsert, string(it.Row))
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && pgErr.Code == "23505":
		// Another item holds (caller_id, client_key): a global table has no
		// cross-item constraint, so the item is dropped, as MREC would keep
		// both and no query would find this one by its key.
		r.Conflicts.Add(1)
		r.Log.Printf("mrec: item %s from %s refused: %v", it.ID, it.From, err)
	case err != nil:
		return fmt.Errorf("apply %s: %w", it.ID, err)
	case tag.RowsAffected() == 1:
		r.Won.Add(1)
	default:
		r.Lost.Add(1)
	}
	r.Applied.Add(1)
	r.mu.Lock()
	r.lags = append(r.lags, time.Duration(time.Now().UnixNano()-it.Sent))
	if len(r.lags) > maxLags {
		r.lags = r.lags[len(r.lags)-maxLags:]
	}
	r.mu.Unlock()
	return nil
}

// Percentile returns the p-th percentile (0..100) of lags, 0 when empty.
func Percentile(lags []time.Duration, p float64) time.Duration {
	if len(lags) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), lags...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(p / 100 * float64(len(s)-1))
	return s[i]
}
