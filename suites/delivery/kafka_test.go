package delivery

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// logCopy is one data record in the topic's log.
type logCopy struct {
	key    string
	offset int64
}

// scanLog reads the whole single-partition topic as a reader at the given
// isolation level would: read_committed stops at the last stable offset and
// hides aborted records; read_uncommitted reads to the high watermark and sees
// them. Control records (transaction markers) are read so the position is
// known, and left out of the result.
func scanLog(ctx context.Context, topic string, readCommitted bool) ([]logCopy, error) {
	var ends kadm.ListedOffsets
	var err error
	iso := kgo.ReadUncommitted()
	if readCommitted {
		iso = kgo.ReadCommitted()
		ends, err = srv.KafkaAdmin.ListCommittedOffsets(ctx, topic)
	} else {
		ends, err = srv.KafkaAdmin.ListEndOffsets(ctx, topic)
	}
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("end offset of %s: %w", topic, err)
	}
	end, ok := ends.Lookup(topic, 0)
	if !ok {
		return nil, fmt.Errorf("end offset of %s/0: not listed", topic)
	}
	if end.Offset <= 0 {
		return nil, nil
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(srv.Brokers), kgo.FetchIsolationLevel(iso), kgo.KeepControlRecords(),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var out []logCopy
	pos := int64(0)
	for pos < end.Offset {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("scan %s: at %d of %d: %w", topic, pos, end.Offset, err)
		}
		var ferr error
		fs.EachError(func(_ string, _ int32, err error) { ferr = err })
		if ferr != nil {
			return nil, fmt.Errorf("scan %s: %w", topic, ferr)
		}
		fs.EachRecord(func(r *kgo.Record) {
			pos = r.Offset + 1
			if !r.Attrs.IsControl() {
				out = append(out, logCopy{key: string(r.Key), offset: r.Offset})
			}
		})
	}
	return out, nil
}

// copies counts the log's copies of one record key.
func copies(log []logCopy, key string) int {
	n := 0
	for _, c := range log {
		if c.key == key {
			n++
		}
	}
	return n
}

// copiesOf reads the log and counts key's copies.
func copiesOf(ctx context.Context, topic, key string, readCommitted bool) (int, error) {
	log, err := scanLog(ctx, topic, readCommitted)
	return copies(log, key), err
}

// groupOffset is the group's committed offset on the topic's partition, -1
// when it committed none.
func groupOffset(ctx context.Context, group, topic string) (int64, error) {
	resp, err := srv.KafkaAdmin.FetchOffsets(ctx, group)
	if err != nil {
		return -1, err
	}
	if err := resp.Error(); err != nil {
		return -1, err
	}
	o, ok := resp.Lookup(topic, 0)
	if !ok {
		return -1, nil
	}
	return o.At, o.Err
}

// removeMember takes a dead static member out of the group at once, as an
// orchestrator that saw the process die would; otherwise the partition stays
// with the corpse until its session times out.
func removeMember(ctx context.Context, group, instanceID string) error {
	resp, err := srv.KafkaAdmin.LeaveGroup(ctx, kadm.LeaveGroup(group).InstanceIDs(instanceID))
	if err != nil {
		return err
	}
	return resp.Error()
}
