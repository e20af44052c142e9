// Package mailbox is the reference stack's mail service (SCENARIOS.md C3,
// the mail branch): a parser fed by a Kafka topic at least once stores
// each message with "put if absent", and the user moves and deletes messages
// through an API. The items follow a single-table layout: the
// locator M#<id>, which never moves and becomes a tombstone on delete, and
// one folder item F#<folder>#<id> where the message is. The reference puts
// the condition on the locator, so a parse redelivered after a move or a
// delete finds it and does nothing; the mutant conditions on the folder item,
// which the move deleted, and the message reappears in Inbox.
package mailbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemcheck/idemcheck/targets/mutant"
)

// Inbox is where a parsed message lands.
const Inbox = "Inbox"

var schema = []string{
	`CREATE TABLE IF NOT EXISTS mail_items (
  pk        text PRIMARY KEY,
  message   text NOT NULL,
  folder    text,
  tombstone boolean NOT NULL DEFAULT false,
  subject   text NOT NULL DEFAULT ''
)`,
	`CREATE INDEX IF NOT EXISTS mail_items_message ON mail_items (message)`,
	// deliveries is the ground truth of every parse the parser handled,
	// written in the same transaction as its effect.
	`CREATE TABLE IF NOT EXISTS mail_deliveries (
  seq          bigserial PRIMARY KEY,
  message      text NOT NULL,
  kafka_offset bigint NOT NULL,
  parser       text NOT NULL,
  stored       boolean NOT NULL,
  at_ns        bigint NOT NULL
)`,
}

// Migrate creates the tables.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	for _, s := range schema {
		if _, err := pool.Exec(ctx, s); err != nil {
			return fmt.Errorf("mailbox: migrate: %w", err)
		}
	}
	return nil
}

func locatorKey(id string) string        { return "M#" + id }
func folderKey(folder, id string) string { return "F#" + folder + "#" + id }

// folderItemsOf selects a message's folder items ($1 is its id).
const folderItemsOf = `message = $1 AND pk LIKE 'F#%'`

// Mail is one parsed message.
type Mail struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
}

// Store runs one delivery of m's parse in one transaction: the put-if-absent
// and the delivery row. stored reports whether it wrote the message.
func Store(ctx context.Context, pool *pgxpool.Pool, m Mail, parser string, offset int64, ms mutant.Set) (stored bool, err error) {
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var err error
		if ms.On(mutant.ConditionOnFolderItem) {
			stored, err = putIfNoFolderItem(ctx, tx, m)
		} else {
			stored, err = putIfNoLocator(ctx, tx, m)
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO mail_deliveries (message, kafka_offset, parser, stored, at_ns) VALUES ($1, $2, $3, $4, $5)`,
			m.ID, offset, parser, stored, time.Now().UnixNano())
		return err
	})
	if err != nil {
		return false, fmt.Errorf("mailbox: store %s: %w", m.ID, err)
	}
	return stored, nil
}

// putIfNoLocator is the reference: the condition sits on M#<id>, which exists
// from the first store until forever (a tombstone after delete).
func putIfNoLocator(ctx context.Context, tx pgx.Tx, m Mail) (bool, error) {
	tag, err := tx.Exec(ctx, `INSERT INTO mail_items (pk, message, folder, subject) VALUES ($1, $2, $3, $4) ON CONFLICT (pk) DO NOTHING`,
		locatorKey(m.ID), m.ID, Inbox, m.Subject)
	if err != nil || tag.RowsAffected() == 0 {
		// The condition failed: the message was stored before, wherever it
		// is now. That is the answer; nothing to write.
		return false, err
	}
	_, err = tx.Exec(ctx, `INSERT INTO mail_items (pk, message, folder, subject) VALUES ($1, $2, $3, $4)`,
		folderKey(Inbox, m.ID), m.ID, Inbox, m.Subject)
	return err == nil, err
}

// putIfNoFolderItem is the mutant: the condition sits on F#Inbox#<id>, which
// the user's move deleted, so a redelivered parse passes it.
func putIfNoFolderItem(ctx context.Context, tx pgx.Tx, m Mail) (bool, error) {
	tag, err := tx.Exec(ctx, `INSERT INTO mail_items (pk, message, folder, subject) VALUES ($1, $2, $3, $4) ON CONFLICT (pk) DO NOTHING`,
		folderKey(Inbox, m.ID), m.ID, Inbox, m.Subject)
	if err != nil || tag.RowsAffected() == 0 {
		return false, err
	}
	_, err = tx.Exec(ctx, `INSERT INTO mail_items (pk, message, folder, subject) VALUES ($1, $2, $3, $4)
ON CONFLICT (pk) DO UPDATE SET folder = EXCLUDED.folder, tombstone = false, subject = EXCLUDED.subject`,
		locatorKey(m.ID), m.ID, Inbox, m.Subject)
	return err == nil, err
}

// Errors of the user's operations.
var (
	ErrNotFound = errors.New("no such message")
	ErrDeleted  = errors.New("message deleted")
	ErrNotThere = errors.New("message is not in that folder")
)

// lockLocator reads M#<id> under a row lock, so a move and a delete of one
// message are serialized.
func lockLocator(ctx context.Context, tx pgx.Tx, id string) (folder *string, tombstone bool, err error) {
	err = tx.QueryRow(ctx, `SELECT folder, tombstone FROM mail_items WHERE pk = $1 FOR UPDATE`, locatorKey(id)).Scan(&folder, &tombstone)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, ErrNotFound
	}
	return folder, tombstone, err
}

// Move moves message id from one folder to another: the folder item moves,
// the locator stays where it is and records the new folder.
func Move(ctx context.Context, pool *pgxpool.Pool, id, from, to string) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		folder, tomb, err := lockLocator(ctx, tx, id)
		switch {
		case err != nil:
			return err
		case tomb:
			return ErrDeleted
		case folder == nil || *folder != from:
			return ErrNotThere
		}
		var subject string
		if err := tx.QueryRow(ctx, `DELETE FROM mail_items WHERE pk = $1 RETURNING subject`, folderKey(from, id)).Scan(&subject); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return ErrNotThere
			}
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO mail_items (pk, message, folder, subject) VALUES ($1, $2, $3, $4) ON CONFLICT (pk) DO NOTHING`,
			folderKey(to, id), id, to, subject); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE mail_items SET folder = $2 WHERE pk = $1`, locatorKey(id), to)
		return err
	})
}

// Delete removes message id from every folder and turns its locator into a
// tombstone, which stays. Deleting a deleted message is a success.
func Delete(ctx context.Context, pool *pgxpool.Pool, id string) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, tomb, err := lockLocator(ctx, tx, id); err != nil || tomb {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM mail_items WHERE `+folderItemsOf, id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE mail_items SET folder = NULL, tombstone = true, subject = '' WHERE pk = $1`, locatorKey(id))
		return err
	})
}

// Locate lists the folders message id is in (sorted; empty when nowhere):
// the ground truth a harness reads.
func Locate(ctx context.Context, pool *pgxpool.Pool, id string) ([]string, error) {
	rows, err := pool.Query(ctx, `SELECT folder FROM mail_items WHERE `+folderItemsOf+` ORDER BY folder`, id)
	if err != nil {
		return nil, err
	}
	fs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if fs == nil {
		fs = []string{}
	}
	return fs, err
}

// Locator reads M#<id>: its folder ("" when none), whether it is a tombstone,
// and whether it exists at all.
func Locator(ctx context.Context, pool *pgxpool.Pool, id string) (folder string, tombstone, found bool, err error) {
	var f *string
	err = pool.QueryRow(ctx, `SELECT folder, tombstone FROM mail_items WHERE pk = $1`, locatorKey(id)).Scan(&f, &tombstone)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, false, nil
	}
	if f != nil {
		folder = *f
	}
	return folder, tombstone, err == nil, err
}

// Delivery is one parse the parser handled.
type Delivery struct {
	Message string
	Offset  int64
	Parser  string
	Stored  bool
	AtNS    int64
}

// Deliveries lists every handled parse, in order.
func Deliveries(ctx context.Context, pool *pgxpool.Pool) ([]Delivery, error) {
	rows, err := pool.Query(ctx, `SELECT message, kafka_offset, parser, stored, at_ns FROM mail_deliveries ORDER BY seq`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Delivery, error) {
		var d Delivery
		err := r.Scan(&d.Message, &d.Offset, &d.Parser, &d.Stored, &d.AtNS)
		return d, err
	})
}
