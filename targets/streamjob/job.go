// Package streamjob is the stream job of SCENARIOS.md F: merchants' daily
// totals of succeeded payments, read from the connector's topic, written as
// absolute totals to a Postgres sink. Its state is exactly-once (checkpoints
// save state with the input offset); its output is repeated after a restore,
// and the full flush plus barrier tags make the repeat harmless (docs/SCENARIOS.md#F1, F2).
package streamjob

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/mutant"
)

// The job's failpoints, in the order a run meets them.
const (
	AfterSinkWrite         = "streamjob-after-sink-write"
	BeforeCheckpointCommit = "streamjob-before-checkpoint-commit"
	AfterCheckpointCommit  = "streamjob-after-checkpoint-commit"
	// BeforeNotify delays (sleep), drops (error) or crashes the completion
	// notice on its way to the sink.
	BeforeNotify = "streamjob-before-notify"
	MidFlush     = "streamjob-mid-flush" // between the rewrite and the delete
	BeforeReplay = "streamjob-before-replay"
)

// Points lists the job's failpoints.
var Points = []string{AfterSinkWrite, BeforeCheckpointCommit, AfterCheckpointCommit, BeforeNotify, MidFlush, BeforeReplay}

func init() { failpoint.Register(Points...) }

// Config shapes a job.
type Config struct {
	Name     string // job id: checkpoints and late log rows carry it
	Postgres string
	Brokers  []string
	Topic    string
	Version  int
	// CheckpointEvery is the periodic checkpoint interval; 0 takes
	// checkpoints only when asked (the admin endpoint), so a suite decides
	// exactly which checkpoint a restore returns to.
	CheckpointEvery time.Duration
	// NoticeDelay is how long the completion notice takes to reach the sink.
	NoticeDelay time.Duration
	Horizon     time.Duration // acceptance horizon of event time (7200 story s)
	Mutants     mutant.Set
	Valkey      string // for the mutant seen-ids-external
	Log         *log.Logger
}

// Status is what the admin endpoint reports.
type Status struct {
	Version       int    `json:"version"`
	RestoredFrom  int64  `json:"restored_from"`
	BarrierTag    int64  `json:"barrier_tag"`
	LastCompleted int64  `json:"last_completed"`
	NextOffset    int64  `json:"next_offset"`
	Watermark     int64  `json:"watermark"`
	Floor         int64  `json:"floor"`
	Counted       int64  `json:"counted"`
	Duplicates    int64  `json:"duplicates"`
	Late          int64  `json:"late"`
	Flushed       int    `json:"flush_deleted"`
	Mutants       string `json:"mutants,omitempty"`
}

// Job is one running stream job.
type Job struct {
	cfg     Config
	pool    *pgxpool.Pool
	sink    Sink
	kc      *kgo.Client
	state   *State
	seen    Seen
	rules   Rules
	next    int64 // next input offset
	barrier int64 // the last barrier the sink passed
	done    int64 // the last completion the sink heard
	ckpt    chan chan ckptReply
	notices chan int64

	mu sync.Mutex
	st Status
}

type ckptReply struct {
	id  int64
	err error
}

// New connects, restores the last completed checkpoint and runs the full
// flush; Run then replays from the checkpoint's offset.
func New(ctx context.Context, cfg Config) (*Job, error) {
	if cfg.Name == "" || cfg.Postgres == "" || len(cfg.Brokers) == 0 || cfg.Topic == "" {
		return nil, errors.New("streamjob: -name, -postgres, -brokers and -topic are required")
	}
	pool, err := pgxpool.New(ctx, cfg.Postgres)
	if err != nil {
		return nil, fmt.Errorf("streamjob: postgres: %w", err)
	}
	j := &Job{cfg: cfg, pool: pool, sink: Sink{pool}, ckpt: make(chan chan ckptReply), notices: make(chan int64, 16),
		rules: Rules{Version: cfg.Version, Horizon: int64(cfg.Horizon), NoFloor: cfg.Mutants.On(mutant.StreamNoWatermarkFloor)}}
	if err := j.restore(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	if cfg.Mutants.On(mutant.StreamSeenExternal) {
		if j.seen, err = newValkeySeen(cfg.Valkey, cfg.Topic+":"+cfg.Name, cfg.Horizon); err != nil {
			pool.Close()
			return nil, err
		}
	}
	if err := failpoint.Hit(BeforeReplay); err != nil {
		pool.Close()
		return nil, err
	}
	j.kc, err = kgo.NewClient(kgo.SeedBrokers(cfg.Brokers...), kgo.FetchMaxWait(100*time.Millisecond),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{cfg.Topic: {0: kgo.NewOffset().At(j.next)}}))
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("streamjob: kafka: %w", err)
	}
	return j, nil
}

// restore loads the last completed checkpoint c and runs the full flush:
// rewrite every restored key with tag c, then delete the keys tagged c or
// later that restored state lacks (written after barrier c by a run the
// restore erased, which the replay may never write again).
func (j *Job) restore(ctx context.Context) error {
	c, ok, err := LoadLast(ctx, j.pool, j.cfg.Name)
	if err != nil {
		return err
	}
	j.state = NewState()
	j.seen = j.state
	if ok {
		j.state.Totals, j.state.Seen, j.state.Floor = c.Totals, c.Seen, c.Floor
		j.state.Restore(int64(j.cfg.Horizon))
		j.next = c.NextOffset
	}
	j.barrier, j.done = c.ID, c.ID
	j.st = Status{Version: j.cfg.Version, RestoredFrom: c.ID, BarrierTag: c.ID, LastCompleted: c.ID, NextOffset: j.next,
		Floor: j.state.Floor, Mutants: j.cfg.Mutants.String()}
	if !ok || j.cfg.Mutants.On(mutant.StreamNoFullFlush) {
		j.cfg.Log.Printf("restore: checkpoint %d (found %v), offset %d, %d keys, %d seen; full flush skipped", c.ID, ok, j.next, len(c.Totals), len(c.Seen))
		return nil
	}
	if err := j.sink.Rewrite(ctx, j.state.Totals, c.ID); err != nil {
		return err
	}
	if err := failpoint.Hit(MidFlush); err != nil {
		return err
	}
	n, err := j.sink.DeleteUnknown(ctx, j.state.Totals, c.ID)
	if err != nil {
		return err
	}
	j.st.Flushed = n
	j.cfg.Log.Printf("restore: checkpoint %d, offset %d, %d keys rewritten with tag %d, %d keys deleted, %d seen, floor %d",
		c.ID, j.next, len(j.state.Totals), c.ID, n, len(j.state.Seen), j.state.Floor)
	return nil
}

// Close releases connections.
func (j *Job) Close() {
	if j.kc != nil {
		j.kc.Close()
	}
	j.pool.Close()
	if v, ok := j.seen.(*valkeySeen); ok {
		v.close()
	}
}

// Status reports the job's counters (safe from any goroutine).
func (j *Job) Status() Status {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.st
}

// Checkpoint asks the running job for a checkpoint and waits until it has
// completed (its row committed); the sink hears of it later.
func (j *Job) Checkpoint(ctx context.Context) (int64, error) {
	reply := make(chan ckptReply, 1)
	select {
	case j.ckpt <- reply:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	select {
	case r := <-reply:
		return r.id, r.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// Run is the job's one processing goroutine: records, checkpoint barriers and
// completion notices are handled in order, so the barrier a sink write is
// tagged with is exactly the last one taken before it.
func (j *Job) Run(ctx context.Context) error {
	fetches := make(chan kgo.Fetches, 1)
	go func() {
		defer close(fetches)
		for ctx.Err() == nil {
			f := j.kc.PollFetches(ctx)
			select {
			case fetches <- f:
			case <-ctx.Done():
				return
			}
		}
	}()
	var tick <-chan time.Time
	if j.cfg.CheckpointEvery > 0 {
		t := time.NewTicker(j.cfg.CheckpointEvery)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case f, ok := <-fetches:
			if !ok {
				return nil
			}
			if err := j.records(ctx, f); err != nil {
				return err
			}
		case <-tick:
			if _, err := j.checkpoint(ctx); err != nil {
				return err
			}
		case reply := <-j.ckpt:
			id, err := j.checkpoint(ctx)
			reply <- ckptReply{id, err}
			if err != nil {
				return err
			}
		case c := <-j.notices:
			if err := j.heard(ctx, c); err != nil {
				return err
			}
		}
	}
}

func (j *Job) records(ctx context.Context, f kgo.Fetches) error {
	if errs := f.Errors(); len(errs) > 0 {
		fe := errs[0]
		if ctx.Err() != nil || errors.Is(fe.Err, context.Canceled) {
			return nil
		}
		return fmt.Errorf("streamjob: fetch %s/%d: %w", fe.Topic, fe.Partition, fe.Err)
	}
	var err error
	f.EachRecord(func(r *kgo.Record) {
		if err == nil {
			err = j.record(ctx, r)
		}
	})
	return err
}
