package scenario

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp"
)

// runWOrder: the events of one payment (with its refund's, when the config
// has a refund request) delivered in the reverse of the order the PSP
// raised them, then its success events once more after the later state.
func runWOrder(ctx context.Context, e *Env, t *T) {
	p, ok := pay(ctx, e, t, true)
	if !ok {
		return
	}
	refunded := ""
	if e.Cfg.Refund != nil && p.answer.PaymentID != "" {
		r := e.D.Call(ctx, e.Cfg.Refund, t.check.ID+": refund", 0, 0, p.answer.PaymentID, p.in.Key+":refund")
		e.Logf("  %s #%d refund -> %s", t.check.ID, r.Seq, describeResp(r))
		deadline := time.Now().Add(5 * time.Second)
		for len(refundsOf(e, p.chargeOps())) == 0 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if len(refundsOf(e, p.chargeOps())) == 0 {
			p.release()
			t.Errorf("the refund of %s (%s) never reached fakepsp: is the refund request right?", p.answer.PaymentID, describeResp(r))
			return
		}
		p.refresh(e)
		refunded = " with its refund's"
	}
	ids := p.ids()
	slices.Reverse(ids)
	start := time.Now()
	p.release(ids...)
	if !p.requireAcked(ctx, e, t) {
		return
	}
	e.NoteFault("webhook events reversed", start.UnixNano(), time.Now().UnixNano())
	if got := firstAckOrder(p.deliveries(e), p.ids()); len(ids) > 1 && !slices.Equal(got, ids) {
		t.Inconclusive(fmt.Sprintf("the handler acknowledged the events in the order %s, not the reversed %s", strings.Join(got, ", "), strings.Join(ids, ", ")),
			"a first delivery failed and its retry came later")
	}
	late := 0
	for _, ev := range p.events {
		if strings.HasSuffix(ev.Type, ".succeeded") {
			p.send(ctx, e, ev.ID, e.Hooks.Endpoint, fakepsp.SendOptions{Via: "success event again, after the later state"})
			late++
		}
	}
	t.Judge(ctx, nil, p.in)
	t.judgeCredits(ctx, p)
	t.Passf("%d event(s)%s delivered last-raised first, then %d success event(s) again", len(ids), refunded, late)
}

// firstAckOrder lists event ids in the order of their first 2xx.
func firstAckOrder(ds []fakepsp.Delivery, ids []string) []string {
	var out []string
	for _, d := range ds {
		if d.Err == "" && d.Status >= 200 && d.Status < 300 && slices.Contains(ids, d.EventID) && !slices.Contains(out, d.EventID) {
			out = append(out, d.EventID)
		}
	}
	return out
}
