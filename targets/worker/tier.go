package worker

import (
	"context"
	"log"
	"os"
	"time"

	"github.com/idemcheck/idemcheck/targets/tier"
)

// TierName is the worker's tier name for tier.Command.
const TierName = "worker"

func init() { tier.Register(TierName, Main) }

// Main runs one worker process until ctx ends.
func Main(ctx context.Context, args []string) error {
	f := tier.NewFlags(TierName)
	var cfg Config
	pg := f.Postgres()
	brokers := f.Brokers()
	vk := f.Valkey()
	switches := f.Mutants()
	f.StringVar(&cfg.Name, "name", "", "worker name (history process, static group member id)")
	f.StringVar(&cfg.Topic, "topic", "", "topic to consume")
	f.StringVar(&cfg.Group, "group", "", "consumer group")
	f.StringVar(&cfg.PushURL, "push", "", "push provider base URL")
	f.DurationVar(&cfg.DedupWindow, "dedup-window", time.Hour, "logical dedup window")
	f.IntVar(&cfg.UserCap, "user-cap", 0, "logical messages per recipient per window (0: no cap)")
	f.DurationVar(&cfg.SessionTimeout, "session-timeout", 6*time.Second, "consumer group session timeout")
	if err := f.Parse(args); err != nil {
		return err
	}
	g, err := GuardsOf(*switches)
	if err != nil {
		return f.Bad(err)
	}
	// Valkey is the logical dedup cache (empty: no dedup).
	cfg.Guards, cfg.Postgres, cfg.Brokers, cfg.Valkey = g, *pg, *brokers, *vk
	cfg.Log = log.New(os.Stderr, "", log.LstdFlags|log.Lmicroseconds)
	w, err := New(ctx, cfg)
	if err != nil {
		return err
	}
	defer w.Close()
	if _, err := f.Publish(ctx, nil, nil, nil); err != nil {
		return err
	}
	cfg.Log.Printf("worker %s: guards %+v", cfg.Name, g)
	return w.Run(ctx)
}
