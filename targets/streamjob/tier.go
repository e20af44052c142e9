package streamjob

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
	"time"

	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/storytime"
	"github.com/idemcheck/idemcheck/targets/tier"
)

// TierName is the stream job's tier name for tier.Command.
const TierName = "streamjob"

func init() { tier.Register(TierName, Main) }

// Admin paths: GET StatusPath is Status; POST CheckpointPath takes a
// checkpoint and answers {"id": n} once it has completed.
const (
	StatusPath     = "/status"
	CheckpointPath = "/checkpoint"
)

// Main runs one stream job process until ctx ends.
func Main(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet(TierName, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var cfg Config
	var brokers, mutants string
	every := fs.Float64("checkpoint-every", 2, "story seconds between checkpoints (0: only when asked over the admin endpoint)")
	notice := fs.Float64("notice-delay", 0.5, "story seconds a completion notice takes to reach the sink")
	horizon := fs.Float64("horizon", 7200, "acceptance horizon, story seconds of event time")
	fs.StringVar(&cfg.Name, "name", "", "job id (checkpoints and late-copy log rows carry it)")
	fs.StringVar(&cfg.Postgres, "postgres", "", "Postgres DSN: sink, checkpoints, late-copy log")
	fs.StringVar(&brokers, "brokers", "", "Kafka bootstrap host:port list, comma separated")
	fs.StringVar(&cfg.Topic, "topic", "", "the connector's topic (one partition)")
	fs.IntVar(&cfg.Version, "version", 2, "job version: 1 counts declined payments too, 2 only succeeded ones")
	fs.StringVar(&cfg.Valkey, "valkey", "", "Valkey host:port (the seen-ids-external mutant only)")
	fs.StringVar(&mutants, "mutant", "", "guards to switch off, comma separated (targets/mutant, tier streamjob)")
	arm := fs.String("failpoints", "", "failpoints armed at start: name=action;...")
	addrFile := fs.String("addr-file", "", "file to publish {\"admin\": url} to")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("streamjob: %w", err)
	}
	if cfg.Version != 1 && cfg.Version != 2 {
		return fmt.Errorf("streamjob: -version %d: want 1 or 2", cfg.Version)
	}
	m, err := mutant.Parse(mutants)
	if err != nil {
		return fmt.Errorf("streamjob: %w", err)
	}
	if other := len(m) - len(mutant.Of(TierName, m)); other > 0 {
		return fmt.Errorf("streamjob: -mutant %q names switches of other tiers", mutants)
	}
	cfg.Mutants = m
	if brokers != "" {
		cfg.Brokers = strings.Split(brokers, ",")
	}
	if err := failpoint.ArmList(*arm); err != nil {
		return fmt.Errorf("streamjob: %w", err)
	}
	cfg.CheckpointEvery, cfg.NoticeDelay, cfg.Horizon = storytime.D(*every), storytime.D(*notice), storytime.D(*horizon)
	cfg.Log = log.New(os.Stderr, "streamjob ", log.LstdFlags|log.Lmicroseconds)
	j, err := New(ctx, cfg)
	if err != nil {
		return err
	}
	defer j.Close()
	admin, err := failpoint.ServeAdmin(ctx, nil, map[string]http.Handler{
		StatusPath: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(j.Status())
		}),
		CheckpointPath: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost {
				http.Error(w, "checkpoint: POST", http.StatusMethodNotAllowed)
				return
			}
			id, err := j.Checkpoint(r.Context())
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]int64{"id": id})
		}),
	})
	if err != nil {
		return fmt.Errorf("streamjob: admin: %w", err)
	}
	if err := failpoint.WriteAddrs(*addrFile, map[string]string{"admin": admin}); err != nil {
		return fmt.Errorf("streamjob: addr file: %w", err)
	}
	cfg.Log.Printf("streamjob %s: version %d, checkpoint every %v, horizon %v, mutants %q", cfg.Name, cfg.Version, cfg.CheckpointEvery, cfg.Horizon, m.String())
	return j.Run(ctx)
}

// ReadStatus fetches a job's Status from its admin URL.
func ReadStatus(admin string) (Status, error) {
	var s Status
	return s, failpoint.GetJSON(admin+StatusPath, &s)
}

// TakeCheckpoint asks the job behind admin for a checkpoint and returns its
// id once completed (0: the checkpoint was abandoned at a failpoint).
func TakeCheckpoint(admin string) (int64, error) {
	c := http.Client{Timeout: 30 * time.Second}
	resp, err := c.Post(admin+CheckpointPath, "", nil)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return 0, fmt.Errorf("checkpoint: %s: %s", resp.Status, strings.TrimSpace(string(b)))
	}
	var out map[string]int64
	err = json.NewDecoder(resp.Body).Decode(&out)
	return out["id"], err
}
