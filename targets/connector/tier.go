package connector

import (
	"context"
	"log"
	"net/http"
	"os"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/targets/storytime"
	"github.com/idemcheck/idemcheck/targets/tier"
)

// TierName is the connector's tier name for tier.Command.
const TierName = "connector"

func init() { tier.Register(TierName, Main) }

// StatusPath is where the admin endpoint serves Status.
const StatusPath = "/status"

// Main runs one connector process until ctx ends.
func Main(ctx context.Context, args []string) error {
	f := tier.NewFlags(TierName)
	var cfg Config
	pg := f.Postgres()
	brokers := f.Brokers()
	lag := f.Float64("lag", 4, "story seconds between a commit and its publication")
	beat := f.Float64("heartbeat", 1, "story seconds between heartbeats")
	offset := f.Duration("clock-offset", 0, "start the story clock this far ahead (real duration)")
	f.StringVar(&cfg.Topic, "topic", "", "topic to publish changes and heartbeats to (one partition)")
	f.StringVar(&cfg.Slot, "slot", "", "logical replication slot (created when absent)")
	if err := f.Parse(args); err != nil {
		return err
	}
	cfg.Postgres, cfg.Brokers = *pg, *brokers
	cfg.Lag, cfg.Heartbeat = storytime.D(*lag), storytime.D(*beat)
	cfg.Clock = &storytime.Clock{}
	cfg.Clock.Set(*offset)
	cfg.Log = log.New(os.Stderr, "connector ", log.LstdFlags|log.Lmicroseconds)
	c, err := New(ctx, cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := f.Publish(ctx, cfg.Clock, map[string]http.Handler{StatusPath: tier.JSON(func() any { return c.Status() })}, nil); err != nil {
		return err
	}
	cfg.Log.Printf("connector: slot %s topic %s lag %v heartbeat %v", cfg.Slot, cfg.Topic, cfg.Lag, cfg.Heartbeat)
	return c.Run(ctx)
}

// ReadStatus fetches a connector's Status from its admin URL.
func ReadStatus(admin string) (Status, error) {
	var s Status
	err := faults.GetJSON(admin+StatusPath, &s)
	return s, err
}
