package checks

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/pspfront"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/faults"
)

func runA1(ctx context.Context, e *scenario.Env, t *scenario.T) {
	if e.Front == nil {
		runA1Once(ctx, e, t)
		return
	}
	// The reply is lost for the PSP key of the first charge on every attempt
	// (a client library's own retries with that key included) while the
	// client's first request is in flight; then held past the service's PSP
	// timeout for a second intent.
	var why []string
	var ins []scenario.Intent
	for _, v := range []struct {
		name   string
		action pspfront.Action
	}{{"lost", pspfront.Lose}, {"held", pspfront.Hold}} {
		in := e.NewIntent(0)
		ins = append(ins, in)
		r := e.Front.Add(in.Meaning.OrderID, in.Meaning.Amount, v.action)
		start := history.Now()
		a := t.Send(ctx, fmt.Sprintf("PSP charges and its reply is %s on every attempt with its key", v.name), in, nil)
		r.Stop()
		if v.action == pspfront.Hold {
			// The answer comes once the service's own PSP timeout gives up.
			e.NoteWait(scenario.WaitHeld, time.Unix(0, start))
		}
		e.NoteFault("A1 psp reply "+v.name, start, history.Now())
		if r.Fired() == 0 {
			t.Inconclusive(fmt.Sprintf("the PSP reply was never %s", v.name), "the target sent no PSP request for order %s (amount %d) and answered %s%s",
				in.Meaning.OrderID, in.Meaning.Amount, scenario.DescribeResp(a), scenario.Hint(e, a))
			continue
		}
		rs := t.Converge(ctx, "client retries", in, nil)
		why = append(why, fmt.Sprintf("%s: %d PSP request(s) with key(s) %v, first answer %s, final %s", v.name, r.Fired(), r.Keys(), scenario.DescribeResp(a), scenario.DescribeResp(scenario.Last(rs))))
	}
	t.Judge(ctx, nil, ins...)
	t.Passf("%s", strings.Join(why, "; "))
}

// runA1Once loses one PSP reply (the stack hands idemcheck no front).
func runA1Once(ctx context.Context, e *scenario.Env, t *scenario.T) {
	in := e.NewIntent(0)
	f := scenario.ArmPSP(ctx, e, faults.PSPReplyLost, faults.Scope{Amount: in.Meaning.Amount, Times: 1})
	defer f.Undo()
	start := history.Now()
	a := t.Send(ctx, "PSP charges and its reply is lost", in, nil)
	e.NoteFault("A1 psp reply lost", start, history.Now())
	if !scenario.FiredOrErr(t, f, "PSP reply lost", in.Meaning.Amount) {
		return
	}
	rs := t.Converge(ctx, "client retries", in, nil)
	t.Judge(ctx, nil, in)
	t.Passf("first answer %s, final %s", scenario.DescribeResp(a), scenario.DescribeResp(scenario.Last(rs)))
}
