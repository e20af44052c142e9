package relay

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/tier"
)

// TierName is the relay's tier name for tier.Command.
const TierName = "relay"

func init() { tier.Register(TierName, Main) }

// Main runs one relay process until ctx ends.
func Main(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet(TierName, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var cfg Config
	var brokers string
	fs.StringVar(&cfg.Postgres, "postgres", "", "Postgres DSN of the ledger (outbox table)")
	fs.StringVar(&brokers, "brokers", "", "Kafka bootstrap host:port list, comma separated")
	fs.StringVar(&cfg.Topic, "topic", "", "topic to publish to")
	fs.StringVar(&cfg.TransactionalID, "transactional-id", "", "transactional mode with this id (e.g. relay-1); empty: idempotent producer")
	fs.IntVar(&cfg.Batch, "batch", 1000, "rows claimed per batch")
	fs.DurationVar(&cfg.Poll, "poll", 0, "outbox poll interval when idle (default 20ms)")
	arm := fs.String("failpoints", "", "failpoints armed at start: name=action;...")
	addrFile := fs.String("addr-file", "", "file to publish {\"admin\": url} to")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	if brokers != "" {
		cfg.Brokers = strings.Split(brokers, ",")
	}
	if err := failpoint.ArmList(*arm); err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	cfg.Log = log.New(os.Stderr, "relay ", log.LstdFlags|log.Lmicroseconds)
	r, err := New(ctx, cfg)
	if err != nil {
		return err
	}
	defer r.Close()
	admin, err := failpoint.ServeAdmin(ctx, nil, nil)
	if err != nil {
		return fmt.Errorf("relay: admin: %w", err)
	}
	if err := failpoint.WriteAddrs(*addrFile, map[string]string{"admin": admin}); err != nil {
		return fmt.Errorf("relay: addr file: %w", err)
	}
	return r.Run(ctx)
}
