package connector

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"

	"github.com/idemcheck/idemcheck/targets/failpoint"
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
	fs := flag.NewFlagSet(TierName, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var cfg Config
	var brokers string
	lag := fs.Float64("lag", 4, "story seconds between a commit and its publication")
	beat := fs.Float64("heartbeat", 1, "story seconds between heartbeats")
	offset := fs.Duration("clock-offset", 0, "start the story clock this far ahead (real duration)")
	fs.StringVar(&cfg.Postgres, "postgres", "", "Postgres DSN of the ledger's database")
	fs.StringVar(&brokers, "brokers", "", "Kafka bootstrap host:port list, comma separated")
	fs.StringVar(&cfg.Topic, "topic", "", "topic to publish changes and heartbeats to (one partition)")
	fs.StringVar(&cfg.Slot, "slot", "", "logical replication slot (created when absent)")
	arm := fs.String("failpoints", "", "failpoints armed at start: name=action;...")
	addrFile := fs.String("addr-file", "", "file to publish {\"admin\": url} to")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("connector: %w", err)
	}
	if brokers != "" {
		cfg.Brokers = strings.Split(brokers, ",")
	}
	if err := failpoint.ArmList(*arm); err != nil {
		return fmt.Errorf("connector: %w", err)
	}
	cfg.Lag, cfg.Heartbeat = storytime.D(*lag), storytime.D(*beat)
	cfg.Clock = &storytime.Clock{}
	cfg.Clock.Set(*offset)
	cfg.Log = log.New(os.Stderr, "connector ", log.LstdFlags|log.Lmicroseconds)
	c, err := New(ctx, cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	admin, err := failpoint.ServeAdmin(ctx, cfg.Clock, map[string]http.Handler{StatusPath: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(c.Status())
	})})
	if err != nil {
		return fmt.Errorf("connector: admin: %w", err)
	}
	if err := failpoint.WriteAddrs(*addrFile, map[string]string{"admin": admin}); err != nil {
		return fmt.Errorf("connector: addr file: %w", err)
	}
	cfg.Log.Printf("connector: slot %s topic %s lag %v heartbeat %v", cfg.Slot, cfg.Topic, cfg.Lag, cfg.Heartbeat)
	return c.Run(ctx)
}

// ReadStatus fetches a connector's Status from its admin URL.
func ReadStatus(admin string) (Status, error) {
	var s Status
	return s, failpoint.GetJSON(admin+StatusPath, &s)
}
