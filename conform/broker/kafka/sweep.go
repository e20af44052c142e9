package kafka

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/idemcheck/idemcheck/conform/broker"
)

// staleRun says whether a topic is one a run of this config made over
// broker.StaleAfter ago, and returns that run's name.
var staleRun = broker.StaleRun

// sweepStaleQueues deletes the topics and groups that runs of this config left
// on the user's brokers when they were SIGKILLed (and so never cleaned
// up): those started over broker.StaleAfter ago whose group has no member. What
// it cannot delete it says, and the run goes on.
func sweepStaleQueues(ctx context.Context, adm *kadm.Client, topicTmpl, groupTmpl string, now time.Time, stderr io.Writer) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	topics, err := adm.ListTopics(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "idemcheck run: list topics to sweep stale runs: %v\n", err)
		return
	}
	for _, topic := range topics.Names() {
		run, ok := staleRun(topic, topicTmpl, now)
		if !ok {
			continue
		}
		group := strings.ReplaceAll(groupTmpl, "{{run}}", run)
		if ds, err := adm.DescribeGroups(ctx, group); err == nil && len(ds[group].Members) > 0 {
			continue // someone still consumes it: not ours to sweep
		}
		fmt.Fprintf(stderr, "idemcheck run: sweeping topic %s and group %s, left by a run that did not end cleanly\n", topic, group)
		Drop(adm, topic, group, stderr)
	}
}
