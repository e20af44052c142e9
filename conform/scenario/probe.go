package scenario

import (
	"context"
	"fmt"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
)

// accepted: the target took the request on (whatever became of the payment).
func accepted(a *driver.Attempt) bool {
	switch a.Outcome {
	case history.OutcomeSucceeded, history.OutcomeFailed, history.OutcomeProcessing, history.OutcomeInProgress:
		return true
	}
	return false
}

// Probe sends one keyed create before any scenario. When it is rejected, it
// sends the same request without a key: a service that takes the unkeyed one
// but rejects idemcheck's keys would make every check test nothing, and the
// user hears so first. It returns "" when the keyed request was taken.
func Probe(ctx context.Context, e *Env) string {
	t := &T{Check: &Check{ID: "probe"}, Env: e, Intents: map[string]bool{}, finals: map[string]*driver.Attempt{}}
	in := e.NewIntent(0)
	a := t.Send(ctx, "keyed create", in, nil)
	if accepted(a) {
		// Its charge is recounted like any other: one, at most.
		e.Judged(in.Meaning.OrderID, 1, 0, -1)
		return ""
	}
	u := e.NewIntent(0)
	b := t.Send(ctx, "the same create without a key", u, func(s *driver.Send) { s.KeyMode = driver.KeyOmit; s.NoHistory = true })
	if accepted(b) {
		return fmt.Sprintf("a keyed create (key %q, %s) was answered %s while the same request without a key was answered %s: the service rejects idemcheck's keys; set create.key.format (and prefix/length) to the keys it accepts, or every check is inconclusive",
			in.Key, keyExample(e), DescribeResp(a), DescribeResp(b))
	}
	return fmt.Sprintf("a keyed create (key %q, %s) was answered %s and the same request without a key %s: does the service reject idemcheck's keys (set create.key.format to the keys it accepts)? is create (path, body) right, and do outcomes.rules map the service's success answer?",
		in.Key, keyExample(e), DescribeResp(a), DescribeResp(b))
}
