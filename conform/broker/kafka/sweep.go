package kafka

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// staleAfter is how old a run's topic must be before a later run sweeps
// it: far longer than any bounded run lasts, so a run still under way on
// the same brokers is never touched.
const staleAfter = time.Hour

// runNameRE is the {{run}} part of a queue run's names (conform's startQueue).
const runNameRE = `(q-\d+-[0-9a-f]{8}-t(\d+))`

// staleRun says whether topic is one a run of this config made more than
// staleAfter before now, and returns that run's name.
func staleRun(topic, tmpl string, now time.Time) (string, bool) {
	i := strings.Index(tmpl, "{{run}}")
	if i < 0 {
		return "", false
	}
	re := regexp.MustCompile("^" + regexp.QuoteMeta(tmpl[:i]) + runNameRE + regexp.QuoteMeta(tmpl[i+len("{{run}}"):]) + "$")
	m := re.FindStringSubmatch(topic)
	if m == nil {
		return "", false
	}
	sec, err := strconv.ParseInt(m[2], 10, 64)
	if err != nil || now.Sub(time.Unix(sec, 0)) < staleAfter {
		return "", false
	}
	return m[1], true
}

// sweepStaleQueues deletes the topics and groups that runs of this config left
// on the user's brokers when they were SIGKILLed (and so never cleaned
// up): those started over staleAfter ago whose group has no member. What
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
