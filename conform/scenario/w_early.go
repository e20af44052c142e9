package scenario

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/faults"
)

// runWEarly: the webhook wins the race with the create's own answer: the
// PSP charges and holds its reply to the service while the events of the
// charge are delivered, then answers.
func runWEarly(ctx context.Context, e *Env, t *T) {
	if err := e.Hooks.registered(); err != nil {
		t.Errorf("register the webhook endpoint with fakepsp: %v", err)
		return
	}
	p := newHookPayment(e, true)
	f := armPSP(ctx, e, faults.PSPHoldReply, faults.Scope{Amount: p.in.Meaning.Amount, Times: 1})
	defer f.Undo()
	start := time.Now()
	first := background(ctx, t, "create (the PSP holds its answer to the service)", p.in, nil)
	if err := waitFired(ctx, f, e.Cfg.TimeoutD()); err != nil {
		p.release()
		<-first
		t.Inconclusive(fmt.Sprintf("the service made no PSP charge of %d", p.in.Meaning.Amount), "is it configured with the PSP URL idemcheck printed?")
		return
	}
	// The charge is made and its events raised; the service still waits.
	var held []string
	for _, ev := range p.hold.Events() {
		held = append(held, ev.ID)
	}
	p.release()
	delivered := waitDelivered(ctx, e, held, e.Cfg.TimeoutD())
	_ = f.Release()
	a := <-first
	e.NoteFault("webhook before the create's answer", start.UnixNano(), time.Now().UnixNano())
	p.answer = sendUntilFinal(ctx, t, "create, retried after the early webhook", p.in, nil)
	if !p.find(ctx, e, t) {
		return
	}
	if !delivered || a.Return != 0 && !deliveredBefore(e, p, a.Return) {
		t.Inconclusive("no event of the payment reached the handler before the create was answered",
			"the service's PSP call ended before the events were delivered")
	}
	if !p.requireAcked(ctx, e, t) {
		return
	}
	t.Judge(ctx, nil, p.in)
	t.judgeCredits(ctx, p)
	t.Passf("events delivered while the PSP held its answer to the service; the create then answered %s", describeResp(a))
}

// waitDelivered waits until every held event of the payment got an answer
// (any status: a handler may refuse a payment it does not know yet), so all
// of them, not only the first, reach the handler before the create is
// answered.
func waitDelivered(ctx context.Context, e *Env, ids []string, d time.Duration) bool {
	return waitLog(ctx, e, d, func() bool {
		ds := e.PSP.Deliveries()
		for _, id := range ids {
			if !slices.ContainsFunc(ds, func(x fakepsp.Delivery) bool { return x.Err == "" && x.Status != 0 && x.EventID == id }) {
				return false
			}
		}
		return len(ids) > 0
	})
}

func deliveredBefore(e *Env, p *hookPayment, ret int64) bool {
	for _, d := range p.deliveries(e) {
		if d.Err == "" && d.Status != 0 && d.At.UnixNano() < ret {
			return true
		}
	}
	return false
}
