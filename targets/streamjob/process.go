package streamjob

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/targets/connector"
	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/mutant"
)

// record applies one topic record and, when it changed a total, writes the
// key's absolute total to the sink.
func (j *Job) record(ctx context.Context, r *kgo.Record) error {
	e, err := connector.Decode(r.Value)
	if err != nil {
		return err
	}
	bound := j.state.Bound(j.rules)
	v, k := j.state.Apply(e, j.rules, j.seen)
	j.next = r.Offset + 1
	switch v {
	case Counted:
		if err := j.sink.Set(ctx, k, j.state.Totals[k], j.tag()); err != nil {
			return err
		}
		if err := failpoint.Hit(AfterSinkWrite); err != nil {
			return err
		}
	case Late:
		// Sent to the batch recount: logged once per copy, however many
		// replays meet it again.
		fresh, err := LogLate(ctx, j.pool, j.cfg.Name, r.Offset, e.EventID, e.EventTime, bound)
		if err != nil {
			return err
		}
		j.cfg.Log.Printf("late copy %s at offset %d: event time %s + horizon <= bound %s; logged for batch recount (new %v)",
			e.EventID, r.Offset, time.Unix(0, e.EventTime).UTC().Format(time.RFC3339Nano), time.Unix(0, bound).UTC().Format(time.RFC3339Nano), fresh)
	case Duplicate:
		j.cfg.Log.Printf("duplicate %s at offset %d dropped", e.EventID, r.Offset)
	}
	j.mu.Lock()
	j.st.NextOffset, j.st.Watermark = j.next, j.state.Watermark
	switch v {
	case Counted:
		j.st.Counted++
	case Duplicate:
		j.st.Duplicates++
	case Late:
		j.st.Late++
	}
	j.mu.Unlock()
	return nil
}

// tag is what a sink write carries: the last barrier the sink passed; the
// mutant tags with the last completion the sink has heard of, which lags
// the barrier, so its writes escape a restore's delete (F2).
func (j *Job) tag() int64 {
	if j.cfg.Mutants.On(mutant.StreamTagLastCompleted) {
		return j.done
	}
	return j.barrier
}

// checkpoint takes checkpoint barrier+1: the barrier passes the operator
// (state snapshot, floor = the watermark so far) and then the sink (later
// writes carry the new tag); the snapshot and the input offset are saved in
// one row, which completes the checkpoint. The sink hears of the completion
// later, through a notice the failpoint can delay or drop.
func (j *Job) checkpoint(ctx context.Context) (int64, error) {
	id := j.barrier + 1
	floor := j.state.Bound(Rules{})
	c := Checkpoint{ID: id, NextOffset: j.next, Floor: floor, Totals: maps.Clone(j.state.Totals), Seen: maps.Clone(j.state.Seen)}
	j.barrier = id
	j.mu.Lock()
	j.st.BarrierTag = id
	j.mu.Unlock()
	if err := failpoint.Hit(BeforeCheckpointCommit); err != nil {
		j.cfg.Log.Printf("checkpoint %d abandoned: %v", id, err)
		return 0, nil
	}
	if err := Save(ctx, j.pool, j.cfg.Name, c); err != nil {
		return 0, err
	}
	j.state.Floor = floor
	j.mu.Lock()
	j.st.Floor = floor
	j.mu.Unlock()
	if err := failpoint.Hit(AfterCheckpointCommit); err != nil {
		return 0, err
	}
	j.cfg.Log.Printf("checkpoint %d completed: offset %d, %d keys, %d seen, floor %d", id, c.NextOffset, len(c.Totals), len(c.Seen), floor)
	go j.notify(ctx, id)
	return id, nil
}

// notify delivers checkpoint id's completion notice to the sink after the
// configured delay; the failpoint can delay it further, drop it (error) or
// crash the job on the way.
func (j *Job) notify(ctx context.Context, id int64) {
	select {
	case <-time.After(j.cfg.NoticeDelay):
	case <-ctx.Done():
		return
	}
	if err := failpoint.Hit(BeforeNotify); err != nil {
		j.cfg.Log.Printf("completion notice of checkpoint %d dropped: %v", id, err)
		return
	}
	select {
	case j.notices <- id:
	case <-ctx.Done():
	}
}

// heard is the sink receiving checkpoint c's completion notice.
func (j *Job) heard(ctx context.Context, c int64) error {
	if c <= j.done {
		return nil
	}
	j.done = c
	if err := j.sink.Completed(ctx, c); err != nil {
		return fmt.Errorf("streamjob: completion %d: %w", c, err)
	}
	j.mu.Lock()
	j.st.LastCompleted = c
	j.mu.Unlock()
	return nil
}
