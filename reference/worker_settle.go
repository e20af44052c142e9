package reference

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/targets/worker"
)

// workerSettleWithin bounds the wait for a restarted worker to catch up: it
// redelivers one batch at most a few hundred events long, so a worker still
// behind after this is stuck, not slow.
const workerSettleWithin = 15 * time.Second

// withWorkerSettle gives the worker tiers of ts a Settle that waits for the
// worker group to commit past everything the payments topic held when the
// fault ended. A chaos run once killed the worker between its pushes and
// their SENT mark, and the next fault (the E1 crash at that very point) met
// the redelivery of the same batch: three alerts for one payment from a
// worker that did everything right (seed 36 of a 40-seed campaign).
func (f *full) withWorkerSettle(ts []faults.Tier) []faults.Tier {
	out := append([]faults.Tier(nil), ts...)
	for i := range out {
		if out[i].Kind == worker.TierName {
			out[i].Settle = f.settleWorker
		}
	}
	return out
}

// settleWorker returns once the workers' group committed offsets reach the
// topic's end offsets of now. The relay publishes without transactions, so
// the end offset follows the last record and a committed batch reaches it.
func (f *full) settleWorker(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, workerSettleWithin)
	defer cancel()
	topic, group := f.paymentsTopic(), f.workerGroup()
	ends, err := f.adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return fmt.Errorf("end offsets of %s: %w", topic, err)
	}
	for {
		got, err := f.adm.FetchOffsets(ctx, group)
		if err == nil {
			err = got.Error()
		}
		if err == nil {
			if behind := lagBehind(ends, got, topic); behind == "" {
				return nil
			} else if ctx.Err() != nil {
				return fmt.Errorf("group %s still behind after %v: %s", group, workerSettleWithin, behind)
			}
		} else if ctx.Err() != nil {
			return fmt.Errorf("offsets of group %s: %w", group, err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// lagBehind names the first partition of topic whose committed offset is
// short of its end offset in ends ("" when none is): a partition with no
// commit yet is at 0.
func lagBehind(ends kadm.ListedOffsets, committed kadm.OffsetResponses, topic string) string {
	for p, end := range ends[topic] {
		at := int64(0)
		if c, ok := committed.Lookup(topic, p); ok && c.At > 0 {
			at = c.At
		}
		if at < end.Offset {
			return fmt.Sprintf("partition %d committed %d of %d", p, at, end.Offset)
		}
	}
	return ""
}
