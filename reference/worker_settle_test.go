package reference

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
)

// TestLagBehind: the worker settled only when its group committed up to
// the end offset seen when the fault ended; no commit at all is offset 0.
func TestLagBehind(t *testing.T) {
	const topic = "payments-x"
	ends := kadm.ListedOffsets{topic: {0: {Topic: topic, Partition: 0, Offset: 7}}}
	at := func(n int64) kadm.OffsetResponses {
		return kadm.OffsetResponses{topic: {0: {Offset: kadm.Offset{Topic: topic, Partition: 0, At: n}}}}
	}
	for _, tc := range []struct {
		name      string
		committed kadm.OffsetResponses
		want      string
	}{
		{"no commit yet", kadm.OffsetResponses{}, "partition 0 committed 0 of 7"},
		{"no offset (-1)", at(-1), "partition 0 committed 0 of 7"},
		{"one batch short", at(6), "partition 0 committed 6 of 7"},
		{"caught up", at(7), ""},
		{"past it (traffic went on)", at(9), ""},
	} {
		if got := lagBehind(ends, tc.committed, topic); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := lagBehind(kadm.ListedOffsets{topic: {0: {Offset: 0}}}, kadm.OffsetResponses{}, topic); got != "" {
		t.Errorf("empty topic: %q, want settled", got)
	}
}
