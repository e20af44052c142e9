package worker

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/tier"
)

// TierName is the worker's tier name for tier.Command.
const TierName = "worker"

func init() { tier.Register(TierName, Main) }

// Main runs one worker process until ctx ends.
func Main(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet(TierName, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var cfg Config
	var brokers, mutant string
	readCommitted := fs.Bool("read-committed", true, "consume with isolation read_committed (false: read_uncommitted)")
	fs.StringVar(&cfg.Name, "name", "", "worker name (history process, static group member id)")
	fs.StringVar(&cfg.Postgres, "postgres", "", "Postgres DSN (ledger and worker tables)")
	fs.StringVar(&brokers, "brokers", "", "Kafka bootstrap host:port list, comma separated")
	fs.StringVar(&cfg.Topic, "topic", "", "topic to consume")
	fs.StringVar(&cfg.Group, "group", "", "consumer group")
	fs.StringVar(&cfg.PushURL, "push", "", "push provider base URL")
	fs.StringVar(&cfg.Valkey, "valkey", "", "Valkey host:port for logical dedup (empty: no dedup)")
	fs.DurationVar(&cfg.DedupWindow, "dedup-window", time.Hour, "logical dedup window")
	fs.IntVar(&cfg.UserCap, "user-cap", 0, "logical messages per recipient per window (0: no cap)")
	fs.DurationVar(&cfg.SessionTimeout, "session-timeout", 6*time.Second, "consumer group session timeout")
	fs.StringVar(&mutant, "mutant", "", "guard to switch off: "+strings.Join(MutantNames(), ", "))
	arm := fs.String("failpoints", "", "failpoints armed at start: name=action;...")
	addrFile := fs.String("addr-file", "", "file to publish {\"admin\": url} to")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	g, err := GuardsFor(mutant)
	if err != nil {
		return err
	}
	if !*readCommitted {
		g.ReadCommitted = false
	}
	cfg.Guards = g
	if err := failpoint.ArmList(*arm); err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	if brokers != "" {
		cfg.Brokers = strings.Split(brokers, ",")
	}
	cfg.Log = log.New(os.Stderr, "", log.LstdFlags|log.Lmicroseconds)
	w, err := New(ctx, cfg)
	if err != nil {
		return err
	}
	defer w.Close()
	admin, err := failpoint.ServeAdmin(ctx, nil, nil)
	if err != nil {
		return fmt.Errorf("worker: admin: %w", err)
	}
	if err := failpoint.WriteAddrs(*addrFile, map[string]string{"admin": admin}); err != nil {
		return fmt.Errorf("worker: addr file: %w", err)
	}
	cfg.Log.Printf("worker %s: guards %+v", cfg.Name, g)
	return w.Run(ctx)
}
