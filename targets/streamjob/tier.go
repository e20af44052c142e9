package streamjob

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/faults"
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
	f := tier.NewFlags(TierName)
	var cfg Config
	pg := f.Postgres()
	brokers := f.Brokers()
	ms := f.Mutants()
	f.Alias("mutant", "mutants")
	vk := f.Valkey()
	every := f.Float64("checkpoint-every", 2, "story seconds between checkpoints (0: only when asked over the admin endpoint)")
	notice := f.Float64("notice-delay", 0.5, "story seconds a completion notice takes to reach the sink")
	horizon := f.Float64("horizon", 7200, "acceptance horizon, story seconds of event time")
	f.StringVar(&cfg.Name, "name", "", "job id (checkpoints and late-copy log rows carry it)")
	f.StringVar(&cfg.Topic, "topic", "", "the connector's topic (one partition)")
	f.IntVar(&cfg.Version, "version", 2, "job version: 1 counts declined payments too, 2 only succeeded ones")
	if err := f.Parse(args); err != nil {
		return err
	}
	if cfg.Version != 1 && cfg.Version != 2 {
		return f.Bad(fmt.Errorf("-version %d: want 1 or 2", cfg.Version))
	}
	if other := len(*ms) - len(mutant.Of(TierName, *ms)); other > 0 {
		return f.Bad(fmt.Errorf("-mutants %q names switches of other tiers", ms.String()))
	}
	// Valkey serves the seen-ids-external mutant only.
	cfg.Postgres, cfg.Brokers, cfg.Mutants, cfg.Valkey = *pg, *brokers, *ms, *vk
	cfg.CheckpointEvery, cfg.NoticeDelay, cfg.Horizon = storytime.D(*every), storytime.D(*notice), storytime.D(*horizon)
	cfg.Log = log.New(os.Stderr, "streamjob ", log.LstdFlags|log.Lmicroseconds)
	j, err := New(ctx, cfg)
	if err != nil {
		return err
	}
	defer j.Close()
	checkpoint := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "checkpoint: POST", http.StatusMethodNotAllowed)
			return
		}
		id, err := j.Checkpoint(r.Context())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		tier.WriteJSON(w, map[string]int64{"id": id})
	})
	if _, err := f.Publish(ctx, nil, map[string]http.Handler{StatusPath: tier.JSON(func() any { return j.Status() }), CheckpointPath: checkpoint}, nil); err != nil {
		return err
	}
	cfg.Log.Printf("streamjob %s: version %d, checkpoint every %v, horizon %v, mutants %q", cfg.Name, cfg.Version, cfg.CheckpointEvery, cfg.Horizon, ms.String())
	return j.Run(ctx)
}

// ReadStatus fetches a job's Status from its admin URL.
func ReadStatus(admin string) (Status, error) {
	var s Status
	err := faults.GetJSON(admin+StatusPath, &s)
	return s, err
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
