package checks

import (
	"context"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// judgeBehind checks what the tiers behind the API did with the chaos run's
// payments: the client ops and charges the judge saw, with every credit and
// notification, in one history; and the stream job's sink against the
// ledger in its own. A side that cannot be read makes the run inconclusive.
func judgeBehind(ctx context.Context, e *scenario.Env, t *scenario.T) (credits, notes, sinkRows int) {
	if e.Behind == nil {
		return 0, 0, 0
	}
	effects, sink, err := e.Behind(ctx)
	if err != nil {
		t.Inconclusive("the tiers behind the API drained and could be read", "%v", err)
		return 0, 0, 0
	}
	for _, op := range effects {
		switch op.Op {
		case history.OpCredit:
			credits++
		case history.OpNotify:
			notes++
		}
	}
	sinkCredits := 0
	for _, op := range sink {
		switch op.Op {
		case history.OpSink:
			sinkRows++
		case history.OpCredit:
			sinkCredits++
		}
	}
	if sinkCredits > 0 && sinkRows == 0 {
		// The sink rule compares the rows it finds: with none it finds
		// nothing to compare, and a job that never writes would pass.
		t.Inconclusive("the stream job's sink held a row for the credited merchants",
			"the sink read found no row at all for %d ledger credits: is the stream job writing its sink?", sinkCredits)
	}
	whole := append(append(history.History{}, t.History...), effects...)
	t.Report(checker.Check(whole, checker.CheckOptions{Timeout: 10 * time.Second, Faults: e.FaultWindows()}), "whole history")
	if len(sink) > 0 {
		t.Report(checker.Check(sink, checker.CheckOptions{Timeout: 10 * time.Second}), "sink")
	}
	if credits == 0 {
		t.Inconclusive("some payment was credited by the worker", "no credit in %d effects: is the relay publishing and the worker consuming?", len(effects))
	}
	return credits, notes, sinkRows
}
