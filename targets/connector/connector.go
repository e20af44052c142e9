package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

// BeforeAck sits after Kafka acknowledged a transaction's changes and before
// the connector confirms its LSN to the slot: crash here and the restarted
// connector publishes them again; error here and the position stays put
// while the connector keeps running (it is retried at the next transaction).
const BeforeAck = "connector-before-ack"

func init() { failpoint.Register(BeforeAck) }

// Publication is the publication the connector reads (payments only).
const Publication = "idemcheck_payments"

// Config shapes a connector.
type Config struct {
	Postgres string // DSN of the ledger's database
	Brokers  []string
	Topic    string
	Slot     string // replication slot name; created if absent, kept across restarts
	// Lag is how long after its commit a change is published (SCENARIOS.md:
	// about 4 story seconds); Heartbeat is the heartbeat period.
	Lag, Heartbeat time.Duration
	Clock          *storytime.Clock
	Log            *log.Logger
}

// Status is what the admin endpoint reports.
type Status struct {
	Published  int64  `json:"published"`  // change records Kafka acknowledged
	Heartbeats int64  `json:"heartbeats"` // heartbeat records acknowledged
	Pending    int64  `json:"pending"`    // changes received, not yet published
	Acked      string `json:"acked_lsn"`  // the position confirmed to the slot
	Sent       string `json:"sent_lsn"`   // end of the last published transaction
}

type txn struct {
	end     pglogrepl.LSN
	commit  time.Time
	changes []Event
}

// Connector is one running connector.
type Connector struct {
	cfg        Config
	kc         *kgo.Client
	repl       *pgconn.PgConn
	relations  map[uint32]*pglogrepl.RelationMessage
	cur        *txn
	queue      []*txn
	acked      pglogrepl.LSN // confirmed to the slot
	sent       pglogrepl.LSN // every transaction up to here is published
	published  atomic.Int64
	heartbeats atomic.Int64
	pending    atomic.Int64
	ackedStr   atomic.Value
	sentStr    atomic.Value
}

// New connects to Postgres (creating the publication and the slot when
// absent) and to Kafka.
func New(ctx context.Context, cfg Config) (*Connector, error) {
	if cfg.Postgres == "" || len(cfg.Brokers) == 0 || cfg.Topic == "" || cfg.Slot == "" {
		return nil, errors.New("connector: -postgres, -brokers, -topic and -slot are required")
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = storytime.D(1)
	}
	if cfg.Clock == nil {
		cfg.Clock = &storytime.Clock{}
	}
	c := &Connector{cfg: cfg, relations: map[uint32]*pglogrepl.RelationMessage{}}
	c.ackedStr.Store("0/0")
	c.sentStr.Store("0/0")
	if err := c.setup(ctx); err != nil {
		return nil, err
	}
	kc, err := kgo.NewClient(kgo.SeedBrokers(cfg.Brokers...), kgo.DefaultProduceTopic(cfg.Topic),
		kgo.ProducerLinger(0), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		c.repl.Close(context.Background())
		return nil, fmt.Errorf("connector: kafka: %w", err)
	}
	c.kc = kc
	return c, nil
}

func (c *Connector) setup(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, c.cfg.Postgres)
	if err != nil {
		return fmt.Errorf("connector: postgres: %w", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE PUBLICATION "+Publication+" FOR TABLE payments"); err != nil {
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "42710" { // duplicate_object: made by an earlier run
			return fmt.Errorf("connector: publication: %w", err)
		}
	}
	exists, err := waitSlotIdle(ctx, conn, c.cfg.Slot)
	if err != nil {
		return err
	}
	u, err := url.Parse(c.cfg.Postgres)
	if err != nil {
		return fmt.Errorf("connector: dsn: %w", err)
	}
	q := u.Query()
	q.Set("replication", "database")
	u.RawQuery = q.Encode()
	pc, err := pgconn.ParseConfig(u.String())
	if err != nil {
		return fmt.Errorf("connector: dsn: %w", err)
	}
	// pgoutput renders timestamptz in the session's zone: make it UTC so a
	// row's day is the same date the ledger's own queries compute.
	pc.RuntimeParams["timezone"] = "UTC"
	if c.repl, err = pgconn.ConnectConfig(ctx, pc); err != nil {
		return fmt.Errorf("connector: replication connection: %w", err)
	}
	if !exists {
		// A persistent slot: the position must survive a connector crash
		// (that is what makes F3's re-publication real). The harness drops it
		// with its database; services' stale sweep catches a killed run.
		if _, err := pglogrepl.CreateReplicationSlot(ctx, c.repl, c.cfg.Slot, "pgoutput", pglogrepl.CreateReplicationSlotOptions{}); err != nil {
			c.repl.Close(context.Background())
			return fmt.Errorf("connector: create slot %s: %w", c.cfg.Slot, err)
		}
		c.cfg.Log.Printf("connector: created slot %s", c.cfg.Slot)
	}
	err = pglogrepl.StartReplication(ctx, c.repl, c.cfg.Slot, 0, pglogrepl.StartReplicationOptions{
		PluginArgs: []string{"proto_version '1'", "publication_names '" + Publication + "'"}})
	if err != nil {
		c.repl.Close(context.Background())
		return fmt.Errorf("connector: start replication on %s: %w", c.cfg.Slot, err)
	}
	return nil
}

// waitSlotIdle reports whether the slot exists, after waiting (up to 10 s)
// for a predecessor's walsender to let go of it: a SIGKILLed connector's
// server process notices its closed socket only a moment later, and until
// then the slot is "active" and cannot be started.
func waitSlotIdle(ctx context.Context, conn *pgx.Conn, slot string) (bool, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		var active bool
		err := conn.QueryRow(ctx, `SELECT active FROM pg_replication_slots WHERE slot_name = $1`, slot).Scan(&active)
		if errors.Is(err, pgx.ErrNoRows) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("connector: slot lookup: %w", err)
		}
		if !active {
			return true, nil
		}
		if time.Now().After(deadline) {
			return true, fmt.Errorf("connector: slot %s still active after 10 s (another connector runs on it)", slot)
		}
		select {
		case <-ctx.Done():
			return true, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Close releases both connections.
func (c *Connector) Close() {
	c.kc.Close()
	c.repl.Close(context.Background())
}

// Status reports counters and positions (safe from any goroutine).
func (c *Connector) Status() Status {
	return Status{Published: c.published.Load(), Heartbeats: c.heartbeats.Load(), Pending: c.pending.Load(),
		Acked: c.ackedStr.Load().(string), Sent: c.sentStr.Load().(string)}
}

// Run streams until ctx ends. One goroutine owns the replication connection:
// it receives with a deadline at the next thing due (a change's publication,
// a heartbeat, a status update), so nothing else touches the connection.
func (c *Connector) Run(ctx context.Context) error {
	nextBeat := time.Now()
	nextStatus := time.Now()
	for {
		if ctx.Err() != nil {
			return nil
		}
		now := time.Now()
		if err := c.publishDue(ctx, now); err != nil {
			return err
		}
		if !now.Before(nextBeat) {
			if err := c.heartbeat(ctx); err != nil {
				return err
			}
			nextBeat = now.Add(c.cfg.Heartbeat)
		}
		if !now.Before(nextStatus) {
			if err := c.sendStatus(ctx); err != nil {
				return err
			}
			nextStatus = now.Add(100 * time.Millisecond)
		}
		deadline := nextBeat
		if nextStatus.Before(deadline) {
			deadline = nextStatus
		}
		if len(c.queue) > 0 {
			if due := c.queue[0].commit.Add(c.cfg.Lag); due.Before(deadline) {
				deadline = due
			}
		}
		rctx, cancel := context.WithDeadline(ctx, deadline)
		msg, err := c.repl.ReceiveMessage(rctx)
		cancel()
		if err != nil {
			if pgconn.Timeout(err) || ctx.Err() != nil {
				continue
			}
			return fmt.Errorf("connector: receive: %w", err)
		}
		if err := c.handle(msg); err != nil {
			return err
		}
	}
}

func (c *Connector) handle(raw pgproto3.BackendMessage) error {
	switch m := raw.(type) {
	case *pgproto3.ErrorResponse:
		return fmt.Errorf("connector: server error: %s (%s)", m.Message, m.Code)
	case *pgproto3.CopyData:
		switch m.Data[0] {
		case pglogrepl.PrimaryKeepaliveMessageByteID:
			k, err := pglogrepl.ParsePrimaryKeepaliveMessage(m.Data[1:])
			if err != nil {
				return fmt.Errorf("connector: keepalive: %w", err)
			}
			// The keepalive's position is what the server has already sent
			// us, so with nothing held back it is safe to confirm: the slot
			// then stops retaining WAL of tables outside the publication.
			if len(c.queue) == 0 && c.cur == nil && k.ServerWALEnd > c.sent {
				c.setSent(k.ServerWALEnd)
				c.ack()
			}
		case pglogrepl.XLogDataByteID:
			x, err := pglogrepl.ParseXLogData(m.Data[1:])
			if err != nil {
				return fmt.Errorf("connector: xlogdata: %w", err)
			}
			return c.decode(x.WALData)
		}
	}
	return nil
}

func (c *Connector) setSent(l pglogrepl.LSN) {
	c.sent = l
	c.sentStr.Store(l.String())
}

// ack confirms sent to the slot unless the failpoint refuses.
func (c *Connector) ack() {
	if c.sent <= c.acked {
		return
	}
	if err := failpoint.Hit(BeforeAck); err != nil {
		return // the position stays; the next transaction retries
	}
	c.acked = c.sent
	c.ackedStr.Store(c.acked.String())
}

func (c *Connector) sendStatus(ctx context.Context) error {
	if err := pglogrepl.SendStandbyStatusUpdate(ctx, c.repl, pglogrepl.StandbyStatusUpdate{WALWritePosition: c.acked}); err != nil {
		return fmt.Errorf("connector: status update: %w", err)
	}
	return nil
}

// publishDue publishes every queued transaction whose commit is Lag old, in
// commit order, each in one produce call, then confirms its end LSN.
func (c *Connector) publishDue(ctx context.Context, now time.Time) error {
	for len(c.queue) > 0 && !now.Before(c.queue[0].commit.Add(c.cfg.Lag)) {
		t := c.queue[0]
		recs := make([]*kgo.Record, 0, len(t.changes))
		for _, e := range t.changes {
			b, _ := json.Marshal(e)
			recs = append(recs, &kgo.Record{Key: []byte(e.PaymentID), Value: b, Partition: 0})
		}
		if err := c.kc.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("connector: publish %s: %w", t.end, err)
		}
		c.published.Add(int64(len(recs)))
		c.pending.Add(-int64(len(recs)))
		c.queue = c.queue[1:]
		c.setSent(t.end)
		c.ack()
	}
	return nil
}

// heartbeat publishes the time up to which every commit has been published:
// the connector's clock minus Lag. The clock is the story clock, so the
// harness can move the stream's event time two hours on (F4).
func (c *Connector) heartbeat(ctx context.Context) error {
	b, _ := json.Marshal(Event{Kind: KindHeartbeat, EventTime: c.cfg.Clock.Now().Add(-c.cfg.Lag).UnixNano()})
	if err := c.kc.ProduceSync(ctx, &kgo.Record{Value: b, Partition: 0}).FirstErr(); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("connector: heartbeat: %w", err)
	}
	c.heartbeats.Add(1)
	return nil
}
