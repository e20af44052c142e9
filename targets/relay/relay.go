package relay

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mutant"
)

// Failpoints of the relay.
const (
	// AfterPublishBeforeDelete: the broker acknowledged (and, in
	// transactional mode, the transaction committed); the row is not deleted.
	// It sits between the relay's two steps, so with the mutant
	// relay-delete-before-publish it comes after the delete.
	AfterPublishBeforeDelete = "after-publish-before-delete"
	// BeforeCommitTransaction: records are in the log inside an open
	// transaction (transactional mode only).
	BeforeCommitTransaction = "before-commit-transaction"
)

func init() {
	// The failpoint catalogue lists the reference-stack points; the
	// delivery tiers register theirs, which also arms any named in
	// $IDEMCHECK_FAILPOINTS.
	failpoint.Register(AfterPublishBeforeDelete, BeforeCommitTransaction)
}

// Config configures one relay process.
type Config struct {
	Postgres string
	Brokers  []string
	Topic    string
	// TransactionalID switches on transactional mode (e.g. relay-1); empty
	// means Kafka's idempotent producer, whose dedup lasts one session.
	TransactionalID string
	// Batch is the most rows claimed, published and deleted together.
	Batch int
	Poll  time.Duration
	Log   *log.Logger
	// Mutants are the relay's switches (relay-delete-before-publish).
	Mutants mutant.Set
}

// Relay moves outbox rows to Kafka.
type Relay struct {
	cfg  Config
	pool *pgxpool.Pool
	kc   *kgo.Client
}

// New connects to Postgres and Kafka.
func New(ctx context.Context, cfg Config) (*Relay, error) {
	if cfg.Topic == "" || len(cfg.Brokers) == 0 || cfg.Postgres == "" {
		return nil, errors.New("relay: postgres, brokers and topic are required")
	}
	if cfg.Batch <= 0 {
		// One claim, one produce and one delete per batch: the
		// Postgres commit and the broker's ack are paid per batch, so
		// a burst of successes moves in few round trips.
		cfg.Batch = 1000
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 20 * time.Millisecond
	}
	if cfg.Log == nil {
		cfg.Log = log.Default()
	}
	pool, err := ledger.OpenBatch(ctx, cfg.Postgres)
	if err != nil {
		return nil, fmt.Errorf("relay: postgres: %w", err)
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.DefaultProduceTopic(cfg.Topic),
		kgo.ProducerLinger(0),
	}
	if cfg.TransactionalID != "" {
		opts = append(opts, kgo.TransactionalID(cfg.TransactionalID))
	}
	kc, err := kgo.NewClient(opts...)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("relay: kafka: %w", err)
	}
	return &Relay{cfg: cfg, pool: pool, kc: kc}, nil
}

// Close releases the connections.
func (r *Relay) Close() {
	r.kc.Close()
	r.pool.Close()
}

// Run relays until ctx ends. A failed batch is retried (its rows stay in the
// outbox); nothing is skipped.
func (r *Relay) Run(ctx context.Context) error {
	backoff := r.cfg.Poll
	for {
		n, err := r.Once(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if fenced(err) {
			// A newer session owns the transactional id: this process
			// is a zombie and must stop, not retry.
			return fmt.Errorf("relay: fenced by a newer session: %w", err)
		}
		wait := r.cfg.Poll
		switch {
		case err != nil:
			r.cfg.Log.Printf("relay: batch failed, retrying in %v: %v", backoff, err)
			wait, backoff = backoff, min(2*backoff, time.Second)
		case n > 0:
			backoff, wait = r.cfg.Poll, 0
		}
		if wait > 0 {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(wait):
			}
		}
	}
}

type row struct {
	id int64
	ev Event
}

// Once claims up to Batch rows, publishes them and deletes them; it returns
// how many rows it relayed.
func (r *Relay) Once(ctx context.Context) (int, error) {
	tx, err := r.pool.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	// SKIP LOCKED lets two relays share the outbox without sending one row
	// twice at the same time; the lock lasts until the delete commits.
	rows, err := tx.Query(ctx, `SELECT id, event_id, payment_id, merchant, amount, currency
		FROM outbox ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`, r.cfg.Batch)
	if err != nil {
		return 0, err
	}
	batch, err := pgx.CollectRows(rows, func(rs pgx.CollectableRow) (row, error) {
		var x row
		x.ev.Type = TypePaymentSucceeded
		err := rs.Scan(&x.id, &x.ev.EventID, &x.ev.PaymentID, &x.ev.Merchant, &x.ev.Amount, &x.ev.Currency)
		return x, err
	})
	if err != nil || len(batch) == 0 {
		return 0, err
	}
	ids := make([]int64, len(batch))
	for i, x := range batch {
		ids[i] = x.id
	}
	remove := func() error {
		if _, err := tx.Exec(ctx, `DELETE FROM outbox WHERE id = ANY($1)`, ids); err != nil {
			return err
		}
		return tx.Commit(ctx)
	}
	if r.cfg.Mutants.On(mutant.RelayDeleteFirst) {
		// The mutant: the rows go before the broker has them, so the
		// crash point between the two steps loses the batch.
		if err := remove(); err != nil {
			return 0, err
		}
		if err := failpoint.Hit(AfterPublishBeforeDelete); err != nil {
			return 0, err
		}
		return len(batch), r.publish(ctx, batch)
	}
	if err := r.publish(ctx, batch); err != nil {
		return 0, err
	}
	if err := failpoint.Hit(AfterPublishBeforeDelete); err != nil {
		return 0, err
	}
	return len(batch), remove()
}

func (r *Relay) publish(ctx context.Context, batch []row) error {
	recs := make([]*kgo.Record, len(batch))
	for i, x := range batch {
		recs[i] = &kgo.Record{
			Key:     []byte(x.ev.EventID),
			Value:   x.ev.Encode(),
			Headers: []kgo.RecordHeader{{Key: HeaderEventID, Value: []byte(x.ev.EventID)}},
		}
	}
	if r.cfg.TransactionalID == "" {
		return r.kc.ProduceSync(ctx, recs...).FirstErr()
	}
	if err := r.kc.BeginTransaction(); err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	err := r.kc.ProduceSync(ctx, recs...).FirstErr()
	if err == nil {
		err = failpoint.Hit(BeforeCommitTransaction)
	}
	commit := kgo.TryCommit
	if err != nil {
		commit = kgo.TryAbort
	}
	if eerr := r.kc.EndTransaction(context.WithoutCancel(ctx), commit); eerr != nil {
		return errors.Join(err, fmt.Errorf("end transaction (%v): %w", commit == kgo.TryCommit, eerr))
	}
	return err
}

func fenced(err error) bool {
	return errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch)
}
