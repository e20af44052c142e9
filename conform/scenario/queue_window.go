package scenario

import (
	"context"
	"slices"
	"time"

	"github.com/idemcheck/idemcheck/conform/broker"
)

// Stopper is a consumer process idemcheck can stop as an orchestrator
// does: SIGTERM, then SIGKILL after target.stop_grace. Stop reports
// whether the process ended within the grace.
type Stopper interface {
	Stop() (graceful bool, err error)
}

// Assignment is each member's partitions of the run's topic, as the
// group's leader assigned them.
func (q *Queue) Assignment(ctx context.Context) (map[string][]int32, error) {
	g, err := q.Broker.Group(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string][]int32{}
	for _, m := range g.Members {
		out[m.ID] = m.Lanes
	}
	return out, g.Err
}

// Held lists the records of recs on parts that the group had not
// committed past at at: what a member owning parts holds uncommitted.
func Held(recs []*QRecord, parts []int32, at broker.Acked) []*QRecord {
	var out []*QRecord
	for _, r := range NotPassed(recs, at) {
		if slices.Contains(parts, r.Partition) {
			out = append(out, r)
		}
	}
	return out
}

// Wave makes one record per partition of the run's topic: whichever
// member leaves, it owns some of them. nil when a record's payment could
// not be made (the check is inconclusive, said).
func Wave(ctx context.Context, e *Env, t *T) []*QRecord {
	var out []*QRecord
	for p := range e.Queue.Cfg.Partitions {
		r := NewQRecord(ctx, e, t)
		if r == nil {
			return nil
		}
		r.Partition = int32(p)
		out = append(out, r)
	}
	return out
}

// WaitGone waits, bounded, until the group has n members and none of
// gone among them: after a SIGKILL the dead members stay in the group
// until their session times out, owning partitions nobody reads.
func (q *Queue) WaitGone(ctx context.Context, n int, gone []string, bound time.Duration) ([]string, bool) {
	deadline := time.Now().Add(bound)
	for {
		ms, err := q.Members(ctx)
		if err == nil && len(ms) == n && !slices.ContainsFunc(ms, func(m string) bool { return slices.Contains(gone, m) }) {
			return ms, true
		}
		if time.Now().After(deadline) || SleepCtx(ctx, 50*time.Millisecond) != nil {
			return ms, false
		}
	}
}

// Progress reads, for each record, whether it is credited, and the
// group's committed offsets: where a fault about to strike finds them.
func (q *Queue) Progress(ctx context.Context, e *Env, recs []*QRecord) (credited map[*QRecord]bool, at broker.Acked, ok bool) {
	credited = map[*QRecord]bool{}
	for _, r := range recs {
		rows, err := q.credits(ctx, e, r.Ref)
		if err != nil {
			return nil, nil, false
		}
		credited[r] = len(rows) > 0
	}
	at, err := q.Committed(ctx)
	return credited, at, err == nil
}

// FirstSeen polls until some record of recs is credited or passed, and
// returns how long after since that was (0, false: none within
// converge_within).
func (q *Queue) FirstSeen(ctx context.Context, e *Env, recs []*QRecord, since time.Time) (time.Duration, bool) {
	deadline := time.Now().Add(e.Cfg.ConvergeD())
	for {
		cr, at, ok := q.Progress(ctx, e, recs)
		if ok && (len(NotPassed(recs, at)) < len(recs) || slices.ContainsFunc(recs, func(r *QRecord) bool { return cr[r] })) {
			return time.Since(since), true
		}
		if time.Now().After(deadline) || SleepCtx(ctx, PollEvery) != nil {
			return 0, false
		}
	}
}

// AllSeen polls until every record of recs is credited or passed.
func (q *Queue) AllSeen(ctx context.Context, e *Env, recs []*QRecord) bool {
	deadline := time.Now().Add(e.Cfg.ConvergeD())
	for {
		cr, at, ok := q.Progress(ctx, e, recs)
		if ok && !slices.ContainsFunc(NotPassed(recs, at), func(r *QRecord) bool { return !cr[r] }) {
			return true
		}
		if time.Now().After(deadline) || SleepCtx(ctx, PollEvery) != nil {
			return false
		}
	}
}
