package checks

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/fakepsp/core"
	"github.com/idemcheck/idemcheck/faults"
)

// runWEarly: the webhook wins the race with the create's own answer: the
// PSP charges and holds its reply to the service while the events of the
// charge are delivered, then answers.
func runWEarly(ctx context.Context, e *scenario.Env, t *scenario.T) {
	if err := e.Hooks.Registered(); err != nil {
		t.Errorf("register the webhook endpoint with fakepsp: %v", err)
		return
	}
	p := scenario.NewHookPayment(e, true)
	f := scenario.ArmPSP(ctx, e, faults.PSPHoldReply, faults.Scope{Amount: p.In.Meaning.Amount, Times: 1})
	defer f.Undo()
	start := time.Now()
	first := scenario.Background(ctx, t, "create (the PSP holds its answer to the service)", p.In, nil)
	if err := scenario.WaitFired(ctx, f, e.Cfg.TimeoutD()); err != nil {
		p.Release()
		<-first
		t.Inconclusive(fmt.Sprintf("the service made no PSP charge of %d", p.In.Meaning.Amount), "is it configured with the PSP URL idemcheck printed?")
		return
	}
	// The charge is made and its events raised; the service still waits.
	var held []string
	for _, ev := range p.Hold.Events() {
		held = append(held, ev.ID)
	}
	p.Release()
	delivered := waitDelivered(ctx, e, held, e.Cfg.TimeoutD())
	_ = f.Release()
	a := <-first
	e.NoteFault("webhook before the create's answer", start.UnixNano(), time.Now().UnixNano())
	p.Answer = scenario.SendUntilFinal(ctx, t, "create, retried after the early webhook", p.In, nil)
	if !p.Find(ctx, e, t) {
		return
	}
	if !delivered || a.Return != 0 && !deliveredBefore(e, p, a.Return) {
		t.Inconclusive("no event of the payment reached the handler before the create was answered",
			"the service's PSP call ended before the events were delivered")
	}
	if !p.RequireAcked(ctx, e, t) {
		return
	}
	t.Judge(ctx, nil, p.In)
	t.JudgeCredits(ctx, p)
	t.Passf("events delivered while the PSP held its answer to the service; the create then answered %s", scenario.DescribeResp(a))
}

// waitDelivered waits until every held event of the payment got an answer
// (any status: a handler may refuse a payment it does not know yet), so all
// of them, not only the first, reach the handler before the create is
// answered.
func waitDelivered(ctx context.Context, e *scenario.Env, ids []string, d time.Duration) bool {
	return scenario.WaitLog(ctx, e, d, func() bool {
		ds := e.Local.Deliveries()
		for _, id := range ids {
			if !slices.ContainsFunc(ds, func(x core.Delivery) bool { return x.Err == "" && x.Status != 0 && x.EventID == id }) {
				return false
			}
		}
		return len(ids) > 0
	})
}

func deliveredBefore(e *scenario.Env, p *scenario.HookPayment, ret int64) bool {
	for _, d := range p.Deliveries(e) {
		if d.Err == "" && d.Status != 0 && d.At.UnixNano() < ret {
			return true
		}
	}
	return false
}
