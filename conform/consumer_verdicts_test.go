package conform

import (
	"fmt"
	"slices"
	"testing"

	"github.com/idemcheck/idemcheck/conform/report"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// assertQueueVerdicts holds a queue run on a broker without partitions,
// a group or a consumer list (SQS, RabbitMQ) to what its fixture's flaw
// makes: exactly the want kinds by check, every other queue check a pass,
// Q-rebalance n/a naming what the broker lacks, and the exit that follows.
func assertQueueVerdicts(t *testing.T, brokerName string, code int, rep *report.Report, out string, want map[string][]string) {
	t.Helper()
	if got := findingKinds(rep.Results, queueIDs); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("kinds by check = %v, want %v\n%s", got, want, out)
	}
	for _, r := range rep.Results {
		_, flagged := want[r.ID]
		switch {
		case r.ID == "Q-rebalance":
			if w := "needs ordered partitions and a consumer group that rebalances and a list of the queue's consumers, which broker " + brokerName + " (consumer.broker) does not have"; r.Verdict != scenario.NA || r.Why != w {
				t.Errorf("Q-rebalance: %s %q, want n/a %q", r.Verdict, r.Why, w)
			}
		case slices.Contains(queueIDs, r.ID) && !flagged && r.Verdict != scenario.Pass:
			t.Errorf("%s: %s %s", r.ID, r.Verdict, r.Why)
		}
	}
	wantCode := ExitViolation
	if len(want) == 0 {
		wantCode = ExitPass
	}
	if code != wantCode {
		t.Errorf("exit %d, want %d", code, wantCode)
	}
}
