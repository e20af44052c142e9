// Package region wires a second Region to the first with the servers' own
// replication, each through a Toxiproxy link that carries the lag (docs/SCENARIOS.md#G1,
// G2): Postgres logical replication (a publication of the stack's schema in
// R1, a subscription in R2 whose connection string points at the link) and
// Valkey replication (R2 is REPLICAOF the link in front of R1). It also
// promotes R2 when R1 fails, and proves that nothing is left behind: no
// subscription, replication slot or publication.
package region

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/targets/mrec"
)

// PGFollow is R2's subscription to R1's publication of one schema.
type PGFollow struct {
	Primary  string // R1's superuser DSN
	Follower string // R2's superuser DSN
	Schema   string
	Name     string // publication, subscription and slot name
	promoted bool
}

func exec(ctx context.Context, dsn string, sqls ...string) error {
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer c.Close(context.WithoutCancel(ctx))
	for _, s := range sqls {
		if _, err := c.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", firstLine(s), err)
		}
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// FollowPostgres publishes schema in primary and subscribes follower to it
// through link (host:port in front of primary). The schema's tables must
// exist on both sides. It returns once the initial copy is done, so a spec's
// first write is replicated as a change, with the link's lag.
func FollowPostgres(ctx context.Context, primary, follower, schema, name, link string) (*PGFollow, error) {
	f := &PGFollow{Primary: primary, Follower: follower, Schema: schema, Name: name}
	host, port, err := net.SplitHostPort(link)
	if err != nil {
		return nil, err
	}
	if err := exec(ctx, primary, `CREATE PUBLICATION `+pgx.Identifier{name}.Sanitize()+` FOR TABLES IN SCHEMA `+pgx.Identifier{schema}.Sanitize()); err != nil {
		return nil, fmt.Errorf("region: publish %s: %w", schema, err)
	}
	conninfo := fmt.Sprintf("host=%s port=%s user=postgres dbname=postgres sslmode=disable", host, port)
	if err := exec(ctx, follower, `CREATE SUBSCRIPTION `+pgx.Identifier{name}.Sanitize()+` CONNECTION '`+conninfo+`' PUBLICATION `+
		pgx.Identifier{name}.Sanitize()+` WITH (copy_data = true)`); err != nil {
		_ = f.Stop(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("region: subscribe %s: %w", name, err)
	}
	if err := f.waitSynced(ctx, 60*time.Second); err != nil {
		_ = f.Stop(context.WithoutCancel(ctx))
		return nil, err
	}
	return f, nil
}

func (f *PGFollow) waitSynced(ctx context.Context, within time.Duration) error {
	c, err := pgx.Connect(ctx, f.Follower)
	if err != nil {
		return err
	}
	defer c.Close(context.WithoutCancel(ctx))
	deadline := time.Now().Add(within)
	for {
		var total, ready int
		err := c.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE r.srsubstate = 'r') FROM pg_subscription_rel r
 JOIN pg_subscription s ON s.oid = r.srsubid WHERE s.subname = $1`, f.Name).Scan(&total, &ready)
		if err != nil {
			return err
		}
		if total > 0 && total == ready {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("region: subscription %s: %d of %d tables synced after %v", f.Name, ready, total, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Promote makes the follower a primary: the subscription stops and goes (its
// slot stays with R1, which is gone), and the sequences, which logical
// replication does not carry, move past every replicated id.
func (f *PGFollow) Promote(ctx context.Context) error {
	if err := f.dropSubscription(ctx); err != nil {
		return err
	}
	f.promoted = true
	c, err := pgx.Connect(ctx, f.Follower)
	if err != nil {
		return err
	}
	defer c.Close(context.WithoutCancel(ctx))
	rows, err := c.Query(ctx, `SELECT c.relname, a.attname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 JOIN pg_attribute a ON a.attrelid = c.oid WHERE n.nspname = $1 AND c.relkind = 'r' AND a.attnum > 0
 AND pg_get_serial_sequence(quote_ident(n.nspname) || '.' || quote_ident(c.relname), a.attname) IS NOT NULL`, f.Schema)
	if err != nil {
		return err
	}
	type col struct{ table, name string }
	var cols []col
	for rows.Next() {
		var t col
		if err := rows.Scan(&t.table, &t.name); err != nil {
			rows.Close()
			return err
		}
		cols = append(cols, t)
	}
	rows.Close()
	for _, t := range cols {
		tbl := pgx.Identifier{f.Schema, t.table}.Sanitize()
		id := pgx.Identifier{t.name}.Sanitize()
		if _, err := c.Exec(ctx, `SELECT setval(pg_get_serial_sequence($1, $2), (SELECT coalesce(max(`+id+`), 0) + 1000 FROM `+tbl+`))`,
			f.Schema+"."+t.table, t.name); err != nil {
			return fmt.Errorf("region: promote: sequence of %s.%s: %w", t.table, t.name, err)
		}
	}
	return nil
}

// dropSubscription removes the subscription without asking R1 to drop its
// slot (R1 may be unreachable); Stop drops the slot on R1 itself.
func (f *PGFollow) dropSubscription(ctx context.Context) error {
	n := pgx.Identifier{f.Name}.Sanitize()
	c, err := pgx.Connect(ctx, f.Follower)
	if err != nil {
		return err
	}
	defer c.Close(context.WithoutCancel(ctx))
	var exists bool
	if err := c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_subscription WHERE subname = $1)`, f.Name).Scan(&exists); err != nil || !exists {
		return err
	}
	for _, s := range []string{`ALTER SUBSCRIPTION ` + n + ` DISABLE`, `ALTER SUBSCRIPTION ` + n + ` SET (slot_name = NONE)`, `DROP SUBSCRIPTION ` + n} {
		if _, err := c.Exec(ctx, s); err != nil {
			return fmt.Errorf("region: %s: %w", s, err)
		}
	}
	return nil
}

// Stop removes the subscription, the slot on R1 (waiting for its walsender to
// let go) and the publication. The links to R1 must pass again by now.
func (f *PGFollow) Stop(ctx context.Context) error {
	errs := []error{f.dropSubscription(ctx)}
	errs = append(errs, mrec.DropSlot(ctx, f.Primary, f.Name, 30*time.Second))
	errs = append(errs, DropPublication(ctx, f.Primary, f.Name))
	return errors.Join(errs...)
}

// DropPublication drops publication name on dsn if it exists.
func DropPublication(ctx context.Context, dsn, name string) error {
	return exec(ctx, dsn, `DROP PUBLICATION IF EXISTS `+pgx.Identifier{name}.Sanitize())
}

// Leftovers lists the subscriptions, replication slots and publications on
// dsn whose names start with prefix: a clean run leaves none.
func Leftovers(ctx context.Context, dsn, prefix string) ([]string, error) {
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer c.Close(context.WithoutCancel(ctx))
	rows, err := c.Query(ctx, `SELECT 'subscription ' || subname FROM pg_subscription WHERE subname LIKE $1
 UNION ALL SELECT 'slot ' || slot_name FROM pg_replication_slots WHERE slot_name LIKE $1
 UNION ALL SELECT 'publication ' || pubname FROM pg_publication WHERE pubname LIKE $1`, prefix+"%")
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// Lag is the story's Region replication lag in story seconds (SCENARIOS.md);
// a world may set another.
const Lag = 1.0
