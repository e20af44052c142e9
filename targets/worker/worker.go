package worker

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/valkey-io/valkey-go"

	"github.com/idemcheck/idemcheck/targets/dedup"
	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/push"
)

// Failpoints of the worker.
const (
	// AfterCommitBeforePush: inbox, credit and notification intent are
	// committed; nothing was pushed (branch R).
	AfterCommitBeforePush = "after-commit-before-push"
	// AfterPushBeforeSent: the phone got the push; the intent still says
	// PENDING (branch N, seed P4).
	AfterPushBeforeSent = "after-push-before-sent"
	// BeforeOffsetCommit: the batch is fully handled; Kafka does not know.
	BeforeOffsetCommit = "before-offset-commit"
)

// Failpoints lists the worker's points, in the order a record meets them.
var Failpoints = []string{AfterCommitBeforePush, AfterPushBeforeSent, BeforeOffsetCommit}

func init() {
	// See relay's init: the delivery tiers add their points to the catalogue.
	failpoint.Register(Failpoints...)
}

// Worker is one consumer-group member.
type Worker struct {
	cfg   Config
	pool  *pgxpool.Pool
	kc    *kgo.Client
	push  *push.Client
	vk    valkey.Client
	guard *dedup.Guard
	// committing closes when the last offset commit sent is answered.
	committing chan struct{}
}

// New connects to Postgres, Kafka, the push provider and (optionally) Valkey,
// and creates the worker's tables.
func New(ctx context.Context, cfg Config) (*Worker, error) {
	if cfg.Name == "" || cfg.Postgres == "" || len(cfg.Brokers) == 0 || cfg.Topic == "" || cfg.Group == "" || cfg.PushURL == "" {
		return nil, errors.New("worker: name, postgres, brokers, topic, group and push URL are required")
	}
	if cfg.Log == nil {
		cfg.Log = log.Default()
	}
	if cfg.SessionTimeout <= 0 {
		cfg.SessionTimeout = 6 * time.Second
	}
	if cfg.DedupWindow <= 0 {
		cfg.DedupWindow = time.Hour
	}
	w := &Worker{cfg: cfg, push: push.NewClient(cfg.PushURL), guard: &dedup.Guard{Off: true}}
	var err error
	if w.pool, err = ledger.OpenBatch(ctx, cfg.Postgres); err != nil {
		return nil, fmt.Errorf("worker: postgres: %w", err)
	}
	if err := Migrate(ctx, w.pool); err != nil {
		w.pool.Close()
		return nil, err
	}
	if cfg.Valkey != "" {
		if w.vk, err = dedup.Dial(cfg.Valkey); err != nil {
			w.pool.Close()
			return nil, fmt.Errorf("worker: valkey %s: %w", cfg.Valkey, err)
		}
		w.guard = &dedup.Guard{Client: w.vk, Window: cfg.DedupWindow, Cap: cfg.UserCap, Off: !cfg.Guards.DedupKey}
		if err := dedup.CheckNoEviction(ctx, w.vk); err != nil {
			// An alarm, not a refusal: the guard still works until
			// memory runs out, and failing open is the policy anyway.
			cfg.Log.Printf("worker %s: ALARM: %v", cfg.Name, err)
		}
	}
	iso := kgo.ReadUncommitted()
	if cfg.Guards.ReadCommitted {
		iso = kgo.ReadCommitted()
	}
	w.kc, err = kgo.NewClient(
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.ConsumerGroup(cfg.Group),
		kgo.ConsumeTopics(cfg.Topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(iso),
		// Offsets are committed by hand, after the database transaction.
		kgo.DisableAutoCommit(),
		// A static member id lets the harness remove a dead worker from
		// the group at once (as an orchestrator would) instead of waiting
		// for its session to time out.
		kgo.InstanceID(cfg.Name),
		kgo.SessionTimeout(cfg.SessionTimeout),
		kgo.HeartbeatInterval(cfg.SessionTimeout/6),
		kgo.FetchMaxWait(200*time.Millisecond),
		// No rebalance while a polled batch is in hand: the batch is
		// handled and committed by one owner.
		kgo.BlockRebalanceOnPoll(),
	)
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("worker: kafka: %w", err)
	}
	return w, nil
}

// Close releases the connections.
func (w *Worker) Close() {
	if w.kc != nil {
		// Run may return between a poll and AllowRebalance (ctx ended
		// mid-batch); plain Close would then wait for that allowance
		// forever and the stop would end in SIGKILL.
		w.kc.CloseAllowingRebalance()
	}
	if w.vk != nil {
		w.vk.Close()
	}
	w.pool.Close()
}

// pollMax bounds the records of one batch: one transaction and one offset
// commit per poll, so a larger batch amortises both over more events.
const pollMax = 1024

// drainEvery bounds how many batches run back to back before the pipeline
// drains: a rebalance is allowed only with no batch in hand, so it waits for
// at most this many.
const drainEvery = 8

// Run consumes until ctx ends. Each poll is one batch: its transaction
// commits, then its pushes run while the next batch is polled and committed
// to Postgres; a batch's offsets are sent to the broker once its pushes are
// done, and before the next batch's pushes start.
func (w *Worker) Run(ctx context.Context) error {
	var prev *inFlight
	defer func() {
		if prev != nil {
			<-prev.done // ctx ended: its pushes give up
		}
		w.waitCommit()
	}()
	run := 0
	for {
		var fs kgo.Fetches
		if prev != nil {
			// With a batch in hand, take only what is buffered: waiting
			// would hold that batch's offsets and the rebalance back.
			//lint:ignore SA1012 a nil context is how kgo returns what is buffered at once
			fs = w.kc.PollRecords(nil, pollMax)
		} else {
			fs = w.kc.PollRecords(ctx, pollMax)
		}
		if ctx.Err() != nil {
			return nil
		}
		fs.EachError(func(t string, p int32, err error) {
			w.cfg.Log.Printf("worker %s: fetch %s/%d: %v", w.cfg.Name, t, p, err)
		})
		recs := fs.Records()
		var items []item
		if len(recs) > 0 {
			var err error
			if items, err = w.process(ctx, recs); err != nil {
				return nil // only ctx ends process
			}
		}
		if prev != nil {
			f := prev
			prev = nil
			if err := w.finish(ctx, f); err != nil {
				return nil
			}
		}
		if len(recs) > 0 {
			prev = w.startNotify(ctx, recs, items)
			run++
		}
		if len(recs) == 0 || run >= drainEvery {
			if prev != nil {
				f := prev
				prev = nil
				if err := w.finish(ctx, f); err != nil {
					return nil
				}
			}
			run = 0
			// The next owner of a partition starts from the
			// committed offsets: they are answered before it may.
			w.waitCommit()
			w.kc.AllowRebalance()
		}
	}
}

// inFlight is a batch whose transaction committed and whose pushes run.
type inFlight struct {
	recs []*kgo.Record
	done chan error
}

// process applies the batch recs until it succeeds and returns its items.
// Only transient failures (database) come back here; poison is dead-lettered
// inside the batch. A retry is a redelivery of the whole batch: the inbox
// makes the already-applied part of it a repeat.
func (w *Worker) process(ctx context.Context, recs []*kgo.Record) ([]item, error) {
	var items []item
	err := w.retry(ctx, recs, func() error {
		var err error
		items, err = w.handleBatch(ctx, recs)
		return err
	})
	return items, err
}

// startNotify sends the batch's notifications in the background, retrying
// transient failures (the push provider) until they succeed or ctx ends.
func (w *Worker) startNotify(ctx context.Context, recs []*kgo.Record, items []item) *inFlight {
	f := &inFlight{recs: recs, done: make(chan error, 1)}
	first := true
	go func() {
		f.done <- w.retry(ctx, recs, func() error {
			err := w.notifyBatch(ctx, items, first)
			first = false
			return err
		})
	}()
	return f
}

// finish waits for a batch's pushes, then commits its offsets: the batch is
// fully handled.
func (w *Worker) finish(ctx context.Context, f *inFlight) error {
	if err := <-f.done; err != nil {
		return err
	}
	if err := failpoint.Hit(BeforeOffsetCommit); err != nil {
		// An injected commit failure: the batch is redelivered to
		// whoever owns the partition next.
		w.cfg.Log.Printf("worker %s: %v", w.cfg.Name, err)
		return nil
	}
	w.commit(ctx, f.recs)
	return nil
}

// commit sends the offsets after recs and does not wait for the answer: a
// broker round trip between one batch's pushes and the next batch's was a
// tenth of the delivery bench's time. kgo issues each commit after the one
// before it is answered, so a later batch's offsets are never overwritten by
// an earlier one's; a lost commit only redelivers what the inbox already
// holds. A failed commit is logged, as a synchronous one was.
func (w *Worker) commit(ctx context.Context, recs []*kgo.Record) {
	done := make(chan struct{})
	w.committing = done
	w.kc.CommitOffsets(ctx, offsetsAfter(recs), func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		defer close(done)
		if err == nil {
			err = partitionErr(resp)
		}
		if err != nil {
			w.cfg.Log.Printf("worker %s: offset commit: %v", w.cfg.Name, err)
		}
	})
}

// waitCommit returns once the last commit sent is answered.
func (w *Worker) waitCommit() {
	if w.committing != nil {
		<-w.committing
		w.committing = nil
	}
}

// offsetsAfter is the position after the last of recs in each partition
// (the latest leader epoch first), what CommitRecords would commit.
func offsetsAfter(recs []*kgo.Record) map[string]map[int32]kgo.EpochOffset {
	out := map[string]map[int32]kgo.EpochOffset{}
	for _, r := range recs {
		ps := out[r.Topic]
		if ps == nil {
			ps = map[int32]kgo.EpochOffset{}
			out[r.Topic] = ps
		}
		next := kgo.EpochOffset{Epoch: r.LeaderEpoch, Offset: r.Offset + 1}
		if at, ok := ps[r.Partition]; !ok || at.Less(next) {
			ps[r.Partition] = next
		}
	}
	return out
}

// partitionErr is the first partition error of a commit's answer.
func partitionErr(resp *kmsg.OffsetCommitResponse) error {
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return fmt.Errorf("%s/%d: %w", t.Topic, p.Partition, err)
			}
		}
	}
	return nil
}

// retry runs step until it succeeds or ctx ends, backing off between tries.
func (w *Worker) retry(ctx context.Context, recs []*kgo.Record, step func() error) error {
	backoff := 50 * time.Millisecond
	first, last := recs[0], recs[len(recs)-1]
	for {
		err := step()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		w.cfg.Log.Printf("worker %s: %s/%d@%d..%s/%d@%d: retry in %v: %v", w.cfg.Name,
			first.Topic, first.Partition, first.Offset, last.Topic, last.Partition, last.Offset, backoff, err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}
