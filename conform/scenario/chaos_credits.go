package scenario

import (
	"context"
	"sync"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/fakepsp"
)

// judgeChaosCredits holds the credits of every intent the PSP charged
// against its charge, as the W checks do, when the config names the
// service's webhook handler and its credits: under chaos the schedule's
// webhook faults (duplicates, reordering, lost answers on the webhook link,
// kills of the handler's instance) are what may make one credit two.
func judgeChaosCredits(ctx context.Context, e *Env, t *T, intents []Intent) {
	if e.Hooks == nil || e.Credits == nil {
		return
	}
	var ps []*hookPayment
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
			if p.requireAcked(ctx, e, t) {
				t.judgeCredits(ctx, p)
			}
		}()
	}
	wg.Wait()
}

// chargedPayment is the intent's first PSP charge with the events raised
// about it, or nil when the PSP never charged it.
func chargedPayment(ctx context.Context, e *Env, t *T, in Intent) *hookPayment {
	charges, _ := e.ChargesFor(ctx, in)
	if len(charges) == 0 || charges[0].Output == nil {
		return nil
	}
	name := e.D.Intent(in.Caller, in.Key)
	p := &hookPayment{in: in, name: name, charge: charges[0]}
	for _, a := range t.attempts() {
		if a.Intent == name && a.PaymentID != "" && a.Outcome == checker.OutcomeSucceeded {
			p.ref.PaymentID = a.PaymentID
		}
	}
	p.ref.OrderID = in.Meaning.OrderID
	p.ref.PSPPaymentID = e.PSP.PaymentIntentOfCharge(p.charge.Output.ChargeID)
	for _, ev := range e.PSP.WebhookEvents(p.ref.PSPPaymentID) {
		if fakepsp.TypeMatches(e.Hooks.Cfg.Events, ev.Type) {
			p.events = append(p.events, ev)
		}
	}
	return p
}
