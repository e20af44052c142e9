package checks

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// runWOrder: the events of one payment (with its refund's, when the config
// has a refund request) delivered in the reverse of the order the PSP
// raised them, then its success events once more after the later state.
func runWOrder(ctx context.Context, e *scenario.Env, t *scenario.T) {
	p, ok := scenario.Pay(ctx, e, t, true)
	if !ok {
		return
	}
	refunded := ""
	if e.Cfg.Refund != nil && p.Answer.PaymentID != "" {
		r := e.D.Call(ctx, e.Cfg.Refund, t.Check.ID+": refund", 0, 0, p.Answer.PaymentID, p.In.Key+":refund")
		e.Logf("  %s #%d refund -> %s", t.Check.ID, r.Seq, scenario.DescribeResp(r))
		deadline := time.Now().Add(5 * time.Second)
		for len(scenario.RefundsOf(e, p.ChargeOps())) == 0 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if len(scenario.RefundsOf(e, p.ChargeOps())) == 0 {
			p.Release()
			t.Inconclusive("the refund's events were there to reorder", "the service made no PSP refund of %s within 5s (its refund call was answered %s): is the refund request (refund.path) right?", p.Answer.PaymentID, scenario.DescribeResp(r))
			return
		}
		p.Refresh(e)
		refunded = " with its refund's"
	}
	ids := p.IDs()
	slices.Reverse(ids)
	start := time.Now()
	p.Release(ids...)
	if !p.RequireAcked(ctx, e, t) {
		return
	}
	e.NoteFault("webhook events reversed", start.UnixNano(), time.Now().UnixNano())
	if got := firstAckOrder(p.Deliveries(e), p.IDs()); len(ids) > 1 && !slices.Equal(got, ids) {
		t.Inconclusive(fmt.Sprintf("the handler acknowledged the events in the order %s, not the reversed %s", strings.Join(got, ", "), strings.Join(ids, ", ")),
			"a first delivery failed and its retry came later")
	}
	late := 0
	for _, ev := range p.Events {
		if strings.HasSuffix(ev.Type, ".succeeded") {
			p.Send(ctx, e, ev.ID, e.Hooks.Endpoint, fakepsp.SendOptions{Via: "success event again, after the later state"})
			late++
		}
	}
	t.Judge(ctx, nil, p.In)
	t.JudgeCredits(ctx, p)
	t.Passf("%d event(s)%s delivered last-raised first, then %d success event(s) again", len(ids), refunded, late)
}

// firstAckOrder lists event ids in the order of their first 2xx.
func firstAckOrder(ds []core.Delivery, ids []string) []string {
	var out []string
	for _, d := range ds {
		if d.Err == "" && d.Status >= 200 && d.Status < 300 && slices.Contains(ids, d.EventID) && !slices.Contains(out, d.EventID) {
			out = append(out, d.EventID)
		}
	}
	return out
}
