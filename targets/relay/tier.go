package relay

import (
	"context"
	"log"
	"os"

	"github.com/idemcheck/idemcheck/targets/tier"
)

// TierName is the relay's tier name for tier.Command.
const TierName = "relay"

func init() { tier.Register(TierName, Main) }

// Main runs one relay process until ctx ends.
func Main(ctx context.Context, args []string) error {
	f := tier.NewFlags(TierName)
	var cfg Config
	pg := f.Postgres()
	brokers := f.Brokers()
	ms := f.Mutants()
	f.StringVar(&cfg.Topic, "topic", "", "topic to publish to")
	f.StringVar(&cfg.TransactionalID, "transactional-id", "", "transactional mode with this id (e.g. relay-1); empty: idempotent producer")
	f.IntVar(&cfg.Batch, "batch", 1000, "rows claimed per batch")
	f.DurationVar(&cfg.Poll, "poll", 0, "outbox poll interval when idle (default 20ms)")
	if err := f.Parse(args); err != nil {
		return err
	}
	cfg.Postgres, cfg.Brokers, cfg.Mutants = *pg, *brokers, *ms
	cfg.Log = log.New(os.Stderr, "relay ", log.LstdFlags|log.Lmicroseconds)
	r, err := New(ctx, cfg)
	if err != nil {
		return err
	}
	defer r.Close()
	if _, err := f.Publish(ctx, nil, nil, nil); err != nil {
		return err
	}
	return r.Run(ctx)
}
