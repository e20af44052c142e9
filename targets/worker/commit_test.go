package worker

import (
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

func TestOffsetsAfterIsThePositionPastEachPartitionsLastRecord(t *testing.T) {
	rec := func(topic string, part, epoch int32, off int64) *kgo.Record {
		return &kgo.Record{Topic: topic, Partition: part, LeaderEpoch: epoch, Offset: off}
	}
	got := offsetsAfter([]*kgo.Record{
		rec("a", 0, 1, 7), rec("a", 0, 1, 9), rec("a", 0, 1, 8), // out of order
		rec("a", 1, 1, 40), rec("a", 1, 2, 3), // a newer leader epoch wins
		rec("b", 0, 0, 0),
	})
	want := map[string]map[int32]kgo.EpochOffset{
		"a": {0: {Epoch: 1, Offset: 10}, 1: {Epoch: 2, Offset: 4}},
		"b": {0: {Epoch: 0, Offset: 1}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("offsetsAfter = %v, want %v", got, want)
	}
}
