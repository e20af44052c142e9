package mailbox

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/tier"
)

// ParserTier is the parser's tier name for tier.Command.
const ParserTier = "mailbox-parser"

// BeforeOffsetCommit sits after a batch's parses are stored and before the
// consumer commits their offsets: a crash here makes Kafka redeliver them.
const BeforeOffsetCommit = "parse-before-offset-commit"

func init() {
	tier.Register(ParserTier, ParserMain)
	failpoint.Register(BeforeOffsetCommit)
}

// Parser is one consumer-group member: at least once, offsets committed by
// hand after the batch's transactions.
type Parser struct {
	Name    string
	Pool    *pgxpool.Pool
	Client  *kgo.Client
	Mutants mutant.Set
	Log     *log.Logger
}

// ParserMain runs one parser process until ctx ends.
func ParserMain(ctx context.Context, args []string) error {
	f := tier.NewFlags(ParserTier)
	pg := f.Postgres()
	brokers := f.Brokers()
	ms := f.Mutants()
	name := f.String("name", "", "parser name (history process, static group member id)")
	topic := f.String("topic", "", "topic of raw messages")
	group := f.String("group", "", "consumer group")
	session := f.Duration("session-timeout", 6*time.Second, "consumer group session timeout")
	f.Require("name", "pg", "brokers", "topic", "group")
	if err := f.Parse(args); err != nil {
		return err
	}
	pool, err := pgxpool.New(ctx, *pg)
	if err != nil {
		return fmt.Errorf("%s: postgres: %w", ParserTier, err)
	}
	defer pool.Close()
	if err := Migrate(ctx, pool); err != nil {
		return err
	}
	kc, err := kgo.NewClient(
		kgo.SeedBrokers(*brokers...),
		kgo.ConsumerGroup(*group),
		kgo.ConsumeTopics(*topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		// At least once: offsets are committed by hand, after the store.
		kgo.DisableAutoCommit(),
		// A static member id lets the harness take a crashed parser out of
		// the group at once, as an orchestrator would.
		kgo.InstanceID(*name),
		kgo.SessionTimeout(*session),
		kgo.HeartbeatInterval(*session/6),
		kgo.FetchMaxWait(200*time.Millisecond),
		kgo.BlockRebalanceOnPoll(),
	)
	if err != nil {
		return fmt.Errorf("%s: kafka: %w", ParserTier, err)
	}
	defer kc.Close()
	if _, err := f.Publish(ctx, nil, nil, nil); err != nil {
		return err
	}
	p := &Parser{Name: *name, Pool: pool, Client: kc, Mutants: *ms, Log: log.New(os.Stderr, *name+" ", log.Lmicroseconds)}
	p.Log.Printf("consuming %s as %s in %s, mutants %q", *topic, *name, *group, ms.String())
	return p.Run(ctx)
}

// Run consumes until ctx ends.
func (p *Parser) Run(ctx context.Context) error {
	for {
		fs := p.Client.PollRecords(ctx, 64)
		if ctx.Err() != nil {
			return nil
		}
		fs.EachError(func(t string, part int32, err error) { p.Log.Printf("fetch %s/%d: %v", t, part, err) })
		recs := fs.Records()
		for _, r := range recs {
			if err := p.handle(ctx, r); err != nil {
				return nil // only ctx ends handle
			}
		}
		if len(recs) > 0 {
			if err := failpoint.Hit(BeforeOffsetCommit); err != nil {
				p.Log.Printf("%v: the batch will be redelivered", err)
			} else if err := p.Client.CommitRecords(ctx, recs...); err != nil {
				p.Log.Printf("offset commit: %v", err)
			}
		}
		p.Client.AllowRebalance()
	}
}

// handle stores one delivery, retrying transient database errors until ctx
// ends; a record that does not parse is logged and skipped.
func (p *Parser) handle(ctx context.Context, r *kgo.Record) error {
	var m Mail
	if err := json.Unmarshal(r.Value, &m); err != nil || m.ID == "" {
		p.Log.Printf("offset %d: not a message (%v): skipped", r.Offset, err)
		return nil
	}
	backoff := 50 * time.Millisecond
	for {
		stored, err := Store(ctx, p.Pool, m, p.Name, r.Offset, p.Mutants)
		if err == nil {
			p.Log.Printf("offset %d: %s stored=%v", r.Offset, m.ID, stored)
			return nil
		}
		p.Log.Printf("offset %d: retry in %v: %v", r.Offset, backoff, err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}
