package mrec

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Item is one replicated version of one payments row.
type Item struct {
	From string          `json:"from"`    // the Region that shipped it
	LSN  string          `json:"lsn"`     // commit LSN of the change at the source
	ID   string          `json:"id"`      // payment_id, the item's key
	Row  json.RawMessage `json:"row"`     // the whole row as row_to_json wrote it
	Sent int64           `json:"sent_ns"` // when the sender shipped it (wall clock)
}

// ParseLSN reads Postgres's "X/Y" LSN form.
func ParseLSN(s string) (uint64, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok {
		return 0, fmt.Errorf("mrec: bad LSN %q", s)
	}
	h, err := strconv.ParseUint(hi, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("mrec: bad LSN %q: %w", s, err)
	}
	l, err := strconv.ParseUint(lo, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("mrec: bad LSN %q: %w", s, err)
	}
	return h<<32 | l, nil
}

// FormatLSN writes an LSN in Postgres's form.
func FormatLSN(v uint64) string { return fmt.Sprintf("%X/%X", v>>32, uint32(v)) }

// Change is one changed item of a committed transaction.
type Change struct {
	ID  string
	LSN uint64 // the commit's LSN
}

var changeRe = regexp.MustCompile(`^table (\S+): (?:INSERT|UPDATE|DELETE): .*?\bpayment_id\[text\]:'((?:[^']|'')*)'`)

// ParseChanges reads test_decoding's output (one (lsn, data) row per line)
// and returns the payments items of table (schema.payments) that each
// committed transaction changed, tagged with the commit's LSN.
func ParseChanges(table string, lsns, data []string) ([]Change, error) {
	var out, txn []Change
	for i, d := range data {
		switch {
		case strings.HasPrefix(d, "BEGIN"):
			txn = txn[:0]
		case strings.HasPrefix(d, "COMMIT"):
			lsn, err := ParseLSN(lsns[i])
			if err != nil {
				return nil, err
			}
			for _, c := range txn {
				c.LSN = lsn
				out = append(out, c)
			}
			txn = txn[:0]
		default:
			m := changeRe.FindStringSubmatch(d)
			if m != nil && m[1] == table {
				txn = append(txn, Change{ID: strings.ReplaceAll(m[2], "''", "'")})
			}
		}
	}
	return out, nil
}

// Sender ships its Region's changes to the peer's receiver.
type Sender struct {
	Pool   *pgxpool.Pool
	Region string
	Schema string
	Slot   string
	Peer   string // the link in front of the peer's receiver
	Tick   time.Duration
	Log    *log.Logger

	Shipped atomic.Int64
	acked   atomic.Uint64
}

// Run ships until ctx ends, reconnecting after any error.
func (s *Sender) Run(ctx context.Context) {
	var done uint64 // slot consumed up to here
	for ctx.Err() == nil {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", s.Peer)
		if err != nil {
			sleep(ctx, s.Tick)
			continue
		}
		if err := s.stream(ctx, conn, &done); err != nil && ctx.Err() == nil {
			s.Log.Printf("mrec %s: stream to %s: %v; reconnecting", s.Region, s.Peer, err)
		}
		_ = conn.Close()
		sleep(ctx, s.Tick)
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// stream sends every unacknowledged change on conn; acknowledgements come
// back on the same connection and advance the slot.
func (s *Sender) stream(ctx context.Context, conn net.Conn, done *uint64) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ackErr := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(conn)
		for sc.Scan() {
			v, err := ParseLSN(strings.TrimSpace(sc.Text()))
			if err != nil {
				ackErr <- err
				cancel()
				return
			}
			for {
				cur := s.acked.Load()
				if v <= cur || s.acked.CompareAndSwap(cur, v) {
					break
				}
			}
		}
		ackErr <- fmt.Errorf("ack stream ended: %v", sc.Err())
		cancel()
	}()
	sent := map[Change]bool{} // what this connection carried already
	w := bufio.NewWriter(conn)
	table := s.Schema + ".payments"
	for {
		select {
		case <-ctx.Done():
			select {
			case err := <-ackErr:
				return err
			default:
				return ctx.Err()
			}
		case <-time.After(s.Tick):
		}
		if a := s.acked.Load(); a > *done {
			// Consume what the peer has applied, so it is never decoded again.
			if _, err := s.Pool.Exec(ctx, `SELECT count(*) FROM pg_logical_slot_get_changes($1, $2::pg_lsn, NULL)`, s.Slot, FormatLSN(a)); err != nil {
				return fmt.Errorf("advance slot: %w", err)
			}
			*done = a
			for c := range sent {
				if c.LSN <= a {
					delete(sent, c)
				}
			}
		}
		changes, err := s.peek(ctx, table)
		if err != nil {
			return err
		}
		var ids []string
		for _, c := range changes {
			if !sent[c] {
				ids = append(ids, c.ID)
			}
		}
		if len(ids) == 0 {
			continue
		}
		rows, err := s.rows(ctx, ids)
		if err != nil {
			return err
		}
		for _, c := range changes {
			if sent[c] || c.LSN <= *done {
				continue
			}
			it := Item{From: s.Region, LSN: FormatLSN(c.LSN), ID: c.ID, Row: rows[c.ID], Sent: time.Now().UnixNano()}
			b, _ := json.Marshal(it)
			if _, err := w.Write(append(b, '\n')); err != nil {
				return err
			}
			sent[c] = true
			s.Shipped.Add(1)
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
}

func (s *Sender) peek(ctx context.Context, table string) ([]Change, error) {
	rs, err := s.Pool.Query(ctx, `SELECT lsn::text, data FROM pg_logical_slot_peek_changes($1, NULL, NULL, 'skip-empty-xacts', '1')`, s.Slot)
	if err != nil {
		return nil, fmt.Errorf("peek slot %s: %w", s.Slot, err)
	}
	defer rs.Close()
	var lsns, data []string
	for rs.Next() {
		var l, d string
		if err := rs.Scan(&l, &d); err != nil {
			return nil, err
		}
		lsns, data = append(lsns, l), append(data, d)
	}
	if err := rs.Err(); err != nil {
		return nil, err
	}
	return ParseChanges(table, lsns, data)
}

// rows reads the current version of each item: a later version than the
// change's is fine, since the receiver keeps only the newest anyway.
func (s *Sender) rows(ctx context.Context, ids []string) (map[string]json.RawMessage, error) {
	rs, err := s.Pool.Query(ctx, `SELECT payment_id, row_to_json(p)::text FROM payments p WHERE payment_id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("read items: %w", err)
	}
	defer rs.Close()
	out := map[string]json.RawMessage{}
	for rs.Next() {
		var id, row string
		if err := rs.Scan(&id, &row); err != nil {
			return nil, err
		}
		out[id] = json.RawMessage(row)
	}
	return out, rs.Err()
}
