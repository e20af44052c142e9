package checks

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// forgery is one way an event reaches the handler that it must refuse.
type forgery struct {
	via, sig string
	old      bool // signed outside the tolerance
}

// runWForged: before any valid delivery, each event of a charged payment
// with a wrong signature, with none, and validly signed but outside the
// tolerance; after the valid deliveries, each payload replayed as an old
// capture. Every copy must be refused (4xx) and none may move money.
func runWForged(ctx context.Context, e *scenario.Env, t *scenario.T) {
	p, ok := scenario.Pay(ctx, e, t, true)
	if !ok {
		return
	}
	fresh := []forgery{{"forged: wrong signature", core.SignWrong, false}, {"forged: no signature", core.SignAbsent, false}}
	// A stale copy exists only where the PSP's signature carries the time
	// it was made (Stripe's t=). Adyen's HMAC covers no time: a payload
	// sent again is its own retry, which the handler must accept once.
	timed := true
	if f := e.Cfg.Effects.Formats(); f != nil {
		timed = f.SignsTime()
	}
	if timed {
		fresh = append(fresh, forgery{"forged: valid signature, timestamp outside the tolerance", core.SignValid, true})
	}
	refused, answered := 0, 0
	judge := func(ev fakepsp.WebhookEvent, fg forgery) {
		o := fakepsp.SendOptions{Via: fg.via, Signature: fg.sig}
		if fg.old {
			o.SignedAt = time.Now().Add(-2*e.Hooks.Cfg.ToleranceD() - time.Minute)
		}
		d := p.Send(ctx, e, ev.ID, e.Hooks.Endpoint, o)
		switch {
		case d.Err != "":
		case d.Status >= 200 && d.Status < 300:
			answered++
			f := t.Safety(checker.KindForgedEvent, scenario.RuleOneCredit, "the handler answered %d to %s %s sent %s: anyone who reaches the endpoint could send it",
				d.Status, ev.Type, ev.ID, fg.via)
			f.Intent = p.Name
		default:
			answered++
			if d.Status >= 400 && d.Status < 500 {
				refused++
			}
		}
	}
	// A service may credit from its create path: what the forged copies
	// must not change is what its record held before them.
	before, err := scenario.SettleCredits(ctx, e, p.Ref)
	if err != nil {
		p.Release()
		// The service's endpoint, not idemcheck, failed (as JudgeCredits).
		t.Inconclusive("the service's credits could be read (ledger.credits)", "of %s: %v", p.Ref.OrderID, err)
		return
	}
	for _, ev := range p.Events {
		for _, fg := range fresh {
			judge(ev, fg)
		}
	}
	rows, err := scenario.SettleCredits(ctx, e, p.Ref)
	switch {
	case err != nil:
		// The only evidence of money moved by a forgery: unread, the
		// check proves nothing of it.
		t.Inconclusive("the service's credits could be read after the forged deliveries (ledger.credits)", "of %s: %v", p.Ref.OrderID, err)
	case !slices.Equal(rows, before):
		f := t.Safety(checker.KindForgedEvent, scenario.RuleOneCredit, "payment %s's credits went from %v to %v on forged deliveries alone, before any validly signed one: forged events moved money",
			scenario.PaymentWords(p), before, rows)
		f.Intent = p.Name
	}
	p.Release()
	if !p.RequireAcked(ctx, e, t) {
		return
	}
	if timed {
		for _, ev := range p.Events {
			judge(ev, forgery{"replayed: the payload again, signed as an old capture", core.SignValid, true})
		}
	}
	if answered == 0 {
		t.Inconclusive("no forged copy got an answer from the handler", "is webhook.path right?")
	}
	t.Judge(ctx, nil, p.In)
	t.JudgeCredits(ctx, p)
	untimed := ""
	if !timed {
		untimed = fmt.Sprintf("; no stale or replayed copy: %s's signature carries no time, so a payload sent again is a retry", e.Cfg.Effects.PSPName())
	}
	t.Passf("%d forged or replayed copies answered, %d refused with 4xx (the rest 5xx: refused, though the PSP would retry them)%s", answered, refused, untimed)
}
