package checks

import (
	"context"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// B5Check: the owner dies after the PSP charged, leaving its key record in
// progress; after the key window that stale record must be read as absent.
func B5Check() *scenario.Check {
	return &scenario.Check{ID: "B5", Title: "expired in-progress record left by a dead owner", Level: scenario.Safety,
		Rule: "SCENARIOS.md B5", Needs: scenario.NeedAll(scenario.NeedPSP, scenario.NeedProcs, needWindow), Run: runB5}
}

func runB5(ctx context.Context, e *scenario.Env, t *scenario.T) {
	in := e.NewIntent(0)
	_, start, ok := scenario.KillOwnerAfterCharge(ctx, e, t, in)
	if !ok {
		return
	}
	e.NoteFault("B5 owner killed after the charge", start, history.Now())
	// Let the target settle on its own (a resolver), asking only "did it happen?".
	id := ""
	if e.Cfg.Lookup != nil {
		id = settledID(ctx, e, t, in)
	}
	w := e.Cfg.KeyWindowD()
	wait := w + w/5 + 200*time.Millisecond
	if err := e.Wait(ctx, wait); err != nil {
		t.Errorf("%v", err)
		return
	}
	r := t.Send(ctx, fmt.Sprintf("retry %s later, past the key window", wait), in, nil)
	if r.Outcome == history.OutcomeInProgress {
		fd := t.Safety(checker.KindInconsistentAnswer, "SCENARIOS.md B5 (expired means expires_at < now in the read path)",
			"after the key window the retry got a stale in-progress answer (%d)%s", r.Status, settledNote(id))
		fd.Intent, fd.Seqs, fd.Amount = r.Intent, []int{r.Seq}, in.Meaning.Amount
	}
	rs := t.RetryUntilFinal(ctx, "client retries", in, 10, 200*time.Millisecond, nil)
	t.Judge(ctx, nil, in)
	t.Passf("after the window: %s, then %s", scenario.DescribeResp(r), scenario.DescribeResp(scenario.Last(rs)))
}

func settledNote(id string) string {
	if id == "" {
		return ""
	}
	return fmt.Sprintf(" although the lookup had answered payment %s succeeded", id)
}

// settledID polls the lookup with the payment id the PSP charge names, when
// the target put one in the charge's metadata, for a few seconds.
func settledID(ctx context.Context, e *scenario.Env, t *scenario.T, in scenario.Intent) string {
	charges, _ := e.ChargesFor(ctx, in)
	if len(charges) == 0 || charges[0].Input.Metadata["payment_id"] == "" {
		return ""
	}
	id := charges[0].Input.Metadata["payment_id"]
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		a := e.D.Lookup(ctx, t.Check.ID+": did it happen?", in.Caller, 0, id)
		if a.Outcome == history.OutcomeSucceeded {
			return id
		}
		time.Sleep(200 * time.Millisecond)
	}
	return ""
}
