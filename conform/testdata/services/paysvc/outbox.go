package main

import (
	"context"
	"encoding/json"
	"log"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// outbox is the ledger path of --outbox-dsn: a completed charge's ledger
// row goes into an outbox table in Postgres, in one transaction with the
// payment's row, and a relay sends the outbox's rows on to the ledger (the
// JSON-lines file GET /ledger reads), as an outbox relay publishes to a
// broker. With --flaw outbox-range-delete the relay, once it has sent what
// it read, deletes every row created up to the moment it read, not the
// rows it read: a row whose transaction began before the read and
// committed between the read and the delete is deleted unsent. On a
// loopback that window lasts a fraction of a millisecond.
type outbox struct {
	s           *server
	pool        *pgxpool.Pool
	rangeDelete bool
	// relayed are the payments already in the ledger (read back from it at
	// start), under ledgerMu.
	relayed map[string]bool
}

// relayEvery is the relay's pause between passes: shorter than a run's
// settle, so a charge's row is in the ledger before a judge reads it, and
// long beside the pass itself, so that at a loopback's speed a commit
// seldom lands inside one.
const relayEvery = 250 * time.Millisecond

const outboxSchema = `
CREATE TABLE IF NOT EXISTS payments (payment_id text PRIMARY KEY, order_id text NOT NULL, amount bigint NOT NULL, outbox_id bigint, relayed_at timestamptz);
CREATE TABLE IF NOT EXISTS outbox (id bigserial PRIMARY KEY, order_id text NOT NULL, payment_id text NOT NULL, amount bigint NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now());`

// openOutbox connects to dsn, where PG_ADDR stands for the address
// idemcheck gives the service ($PG_ADDR: its Toxiproxy link to Postgres).
func openOutbox(s *server, dsn string, rangeDelete bool) *outbox {
	dsn = strings.ReplaceAll(dsn, "PG_ADDR", os.Getenv("PG_ADDR"))
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		log.Fatalf("outbox: %v", err)
	}
	for i := 0; ; i++ {
		if _, err = pool.Exec(context.Background(), outboxSchema); err == nil {
			break
		}
		if i == 50 {
			log.Fatalf("outbox: create tables: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	o := &outbox{s: s, pool: pool, rangeDelete: rangeDelete, relayed: map[string]bool{}}
	if b, err := os.ReadFile(s.ledgerLog); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			var r ledgerRow
			if json.Unmarshal([]byte(l), &r) == nil {
				o.relayed[r.PaymentID] = true
			}
		}
	}
	return o
}

// record writes the payment's row and its outbox row in one transaction,
// retrying until it commits: the charge happened, so its row must land.
func (o *outbox) record(rec *record) {
	for {
		err := pgx.BeginFunc(context.Background(), o.pool, func(tx pgx.Tx) error {
			var id int64
			err := tx.QueryRow(context.Background(), `INSERT INTO outbox (order_id, payment_id, amount) VALUES ($1, $2, $3) RETURNING id`,
				rec.OrderID, rec.PaymentID, rec.Amount).Scan(&id)
			if err != nil {
				return err
			}
			_, err = tx.Exec(context.Background(), `INSERT INTO payments (payment_id, order_id, amount, outbox_id) VALUES ($1, $2, $3, $4)
				ON CONFLICT (payment_id) DO UPDATE SET outbox_id = $4`, rec.PaymentID, rec.OrderID, rec.Amount, id)
			return err
		})
		if err == nil {
			return
		}
		log.Printf("outbox: record %s: %v (retrying)", rec.PaymentID, err)
		time.Sleep(50 * time.Millisecond)
	}
}

// relay sends the outbox's rows to the ledger, then deletes them, forever.
func (o *outbox) relay() {
	ctx := context.Background()
	for {
		time.Sleep(relayEvery)
		rows, err := o.pool.Query(ctx, `SELECT now(), id, order_id, payment_id, amount FROM outbox ORDER BY id`)
		if err != nil {
			log.Printf("outbox relay: read: %v", err)
			continue
		}
		var mark time.Time
		var ids []int64
		var sent []ledgerRow
		for rows.Next() {
			var id int64
			var r ledgerRow
			if err := rows.Scan(&mark, &id, &r.OrderID, &r.PaymentID, &r.Amount); err != nil {
				break
			}
			ids, sent = append(ids, id), append(sent, r)
		}
		rows.Close()
		if rows.Err() != nil || len(ids) == 0 {
			continue
		}
		o.send(sent)
		for _, r := range sent {
			// The payment notes when it was published: one round trip per
			// row read, as a relay that publishes row by row makes.
			if _, err := o.pool.Exec(ctx, `UPDATE payments SET relayed_at = now() WHERE payment_id = $1`, r.PaymentID); err != nil {
				log.Printf("outbox relay: note %s relayed: %v", r.PaymentID, err)
			}
		}
		if o.rangeDelete {
			// Everything up to the read "was read": not what committed
			// after it with an earlier created_at.
			_, err = o.pool.Exec(ctx, `DELETE FROM outbox WHERE created_at <= $1`, mark)
		} else {
			_, err = o.pool.Exec(ctx, `DELETE FROM outbox WHERE id = ANY($1)`, ids)
		}
		if err != nil {
			// Not deleted: the next pass sends them again (at least once).
			log.Printf("outbox relay: delete: %v", err)
		}
	}
}

// send appends the rows to the ledger, once per payment: a pass that
// could not delete what it sent sends it again, and the ledger's reader
// must not count that as a second charge.
func (o *outbox) send(rows []ledgerRow) {
	ledgerMu.Lock()
	defer ledgerMu.Unlock()
	f, err := os.OpenFile(o.s.ledgerLog, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		log.Printf("outbox relay: ledger: %v", err)
		return
	}
	defer f.Close()
	for _, r := range rows {
		if o.relayed[r.PaymentID] {
			continue
		}
		o.relayed[r.PaymentID] = true
		b, _ := json.Marshal(r)
		_, _ = f.Write(append(b, '\n'))
	}
}
