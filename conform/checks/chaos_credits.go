package checks

import (
	"context"
	"sync"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/fakepsp"
)

// judgeChaosCredits holds the credits of every intent the PSP charged
// against its charge, as the W checks do, when the config names the
// service's webhook handler and its credits: under chaos the schedule's
// webhook faults (duplicates, reordering, lost answers on the webhook link,
// kills of the handler's instance) are what may make one credit two.
func judgeChaosCredits(ctx context.Context, e *scenario.Env, t *scenario.T, intents []scenario.Intent) {
	if e.Hooks == nil || e.Credits == nil {
		return
	}
	var ps []*scenario.HookPayment
	for _, in := range intents {
		if p := chargedPayment(ctx, e, t, in); p != nil {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		t.Inconclusive("some intent was charged, so its credits could be judged", "no intent of the run reached a PSP charge")
		return
	}
	// Each payment settles for at least half a second: judge eight at once.
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for _, p := range ps {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if p.RequireAcked(ctx, e, t) {
				t.JudgeCredits(ctx, p)
			}
		}()
	}
	wg.Wait()
}

// chargedPayment is the intent's first PSP charge with the events raised
// about it, or nil when the PSP never charged it.
func chargedPayment(ctx context.Context, e *scenario.Env, t *scenario.T, in scenario.Intent) *scenario.HookPayment {
	charges, _ := e.ChargesFor(ctx, in)
	if len(charges) == 0 || charges[0].Output == nil {
		return nil
	}
	name := e.D.Intent(in.Caller, in.Key)
	p := &scenario.HookPayment{In: in, Name: name, Charge: charges[0]}
	for _, a := range t.Attempts() {
		if a.Intent == name && a.PaymentID != "" && a.Outcome == history.OutcomeSucceeded {
			p.Ref.PaymentID = a.PaymentID
		}
	}
	p.Ref.OrderID = in.Meaning.OrderID
	p.Ref.PSPPaymentID = e.Local.PaymentIntentOfCharge(p.Charge.Output.ChargeID)
	for _, ev := range e.Local.WebhookEvents(p.Ref.PSPPaymentID) {
		if fakepsp.TypeMatches(e.Hooks.Cfg.Events, ev.Type) {
			p.Events = append(p.Events, ev)
		}
	}
	return p
}
