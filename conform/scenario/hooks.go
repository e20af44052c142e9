package scenario

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/fakepsp/core"
	"github.com/idemcheck/idemcheck/faults"
)

// Hooks is the service's handler of the PSP's events, when the config has
// a webhook section: where it listens and how fakepsp reaches it.
type Hooks struct {
	Cfg *config.Webhook
	// URLs is the handler on each instance, addressed directly.
	URLs []string
	// Endpoint is what fakepsp registered: URLs[0] through Link, so a
	// check can lose the handler's answers on the way back.
	Endpoint string
	Link     *faults.Link
	// Proc is the process serving the handler the endpoint reaches, when
	// idemcheck owns it (instance 0 for webhook.path; a tier of the
	// reference), and Ready waits until it answers again after a restart.
	Proc  faults.Proc
	Ready func(ctx context.Context) error
	// Register registers Endpoint with fakepsp. It runs once, when the first
	// check that needs deliveries starts, so the checks before it meet the
	// service as they did without a webhook section: a delivery that settles
	// a payment could hide the resolver or takeover guard they test.
	Register func() error
	once     sync.Once
	regErr   error
}

// Registered registers the endpoint on first use.
func (h *Hooks) Registered() error {
	h.once.Do(func() {
		if h.Register != nil {
			h.regErr = h.Register()
		}
	})
	return h.regErr
}

// PaymentRef names one payment every way a credits read may ask for it.
type PaymentRef struct {
	OrderID, PaymentID, PSPPaymentID string
}

// CreditReader reads the merchant credits the service made for one
// payment: one signed amount per row (a refund's is negative).
type CreditReader interface {
	Credits(ctx context.Context, p PaymentRef) ([]int64, error)
}

func NeedHookProc(e *Env) string {
	if e.Hooks != nil && e.Hooks.Proc == nil {
		if len(e.Procs) == 0 {
			return NeedProcs(e)
		}
		return "webhook.url names a handler outside the started instances: idemcheck cannot kill the process it reaches (use webhook.path)"
	}
	return ""
}

func NeedHooks(e *Env) string {
	switch {
	case e.Hooks == nil:
		return "needs a webhook section: the path of the service's webhook handler"
	case e.Credits == nil:
		return "needs ledger.credits: without reading the service's credits no webhook check can tell one credit from two"
	case e.PSP == nil:
		return NeedPSP(e)
	case e.Local == nil:
		return "needs the fakepsp idemcheck starts (effects.fakepsp: true): the webhook checks hold and redeliver its events"
	}
	return ""
}

// HookPayment is one payment a webhook check makes: its intent, the PSP's
// charge and the events raised about it that the endpoint subscribes to.
type HookPayment struct {
	In     Intent
	Name   string // the intent's history name
	Answer *driver.Attempt
	Charge history.Op
	Ref    PaymentRef
	Events []fakepsp.WebhookEvent
	Hold   *fakepsp.Hold // nil when the events went to the schedule at once
	since  time.Time
}

// Pay makes one payment and finds what the PSP raised about it. With hold,
// its events stay out of the delivery schedule until the check releases
// them. ok is false when the check cannot go on (reported on t).
func Pay(ctx context.Context, e *Env, t *T, hold bool) (*HookPayment, bool) {
	if err := e.Hooks.Registered(); err != nil {
		t.Errorf("register the webhook endpoint with fakepsp: %v", err)
		return nil, false
	}
	p := NewHookPayment(e, hold)
	p.Answer = SendUntilFinal(ctx, t, "create", p.In, nil)
	return p, p.Find(ctx, e, t)
}

// NewHookPayment makes up the payment (and its hold) before anything is sent.
func NewHookPayment(e *Env, hold bool) *HookPayment {
	in := e.NewIntent(0)
	p := &HookPayment{In: in, Name: e.D.Intent(in.Caller, in.Key), since: time.Now()}
	if hold {
		// Each intent's amount is its own, and the PSP raises the events at
		// the charge, before it answers: the hold takes all of them.
		amount := in.Meaning.Amount
		p.Hold = e.Local.HoldWebhooks(func(ev fakepsp.WebhookEvent) bool { return ev.Amount == amount })
	}
	return p
}

// Find reads the payment's charge and events from fakepsp.
func (p *HookPayment) Find(ctx context.Context, e *Env, t *T) bool {
	if p.Answer.Outcome != history.OutcomeSucceeded {
		t.Inconclusive(fmt.Sprintf("the create of %s did not succeed (%s)", p.In.Meaning.OrderID, DescribeResp(p.Answer)),
			"a webhook check needs a charged payment to deliver the events of")
		p.Release()
		return false
	}
	charges, _ := e.ChargesFor(ctx, p.In)
	if len(charges) == 0 || charges[0].Output == nil {
		t.Inconclusive(fmt.Sprintf("order %s was answered succeeded but no charge of it reached the PSP", p.In.Meaning.OrderID),
			"is the service calling the PSP idemcheck started?")
		p.Release()
		return false
	}
	p.Charge = charges[0]
	pi := e.Local.PaymentIntentOfCharge(p.Charge.Output.ChargeID)
	p.Ref = PaymentRef{OrderID: p.In.Meaning.OrderID, PaymentID: p.Answer.PaymentID, PSPPaymentID: pi}
	for _, ev := range e.Local.WebhookEvents(pi) {
		if fakepsp.TypeMatches(e.Hooks.Cfg.Events, ev.Type) {
			p.Events = append(p.Events, ev)
		}
	}
	if len(p.Events) == 0 {
		t.Inconclusive(fmt.Sprintf("the PSP raised no event of %s that the endpoint subscribes to (webhook.events %v)", pi, e.Hooks.Cfg.Events),
			"subscribe the endpoint to the events its handler credits on")
		p.Release()
		return false
	}
	return true
}

// Refresh picks up events raised since (a refund's).
func (p *HookPayment) Refresh(e *Env) {
	for _, ev := range e.Local.WebhookEvents(p.Ref.PSPPaymentID) {
		if fakepsp.TypeMatches(e.Hooks.Cfg.Events, ev.Type) && !slices.ContainsFunc(p.Events, func(x fakepsp.WebhookEvent) bool { return x.ID == ev.ID }) {
			p.Events = append(p.Events, ev)
		}
	}
}

func (p *HookPayment) Release(first ...string) {
	if p.Hold != nil {
		p.Hold.Release(first...)
	}
}

func (p *HookPayment) IDs() []string {
	var out []string
	for _, ev := range p.Events {
		out = append(out, ev.ID)
	}
	return out
}

// Deliveries are the delivery log's entries of the payment's events.
func (p *HookPayment) Deliveries(e *Env) []core.Delivery {
	var out []core.Delivery
	for _, d := range e.Local.Deliveries() {
		if slices.Contains(p.IDs(), d.EventID) {
			out = append(out, d)
		}
	}
	return out
}

func Acked(ds []core.Delivery, id string) bool {
	return slices.ContainsFunc(ds, func(d core.Delivery) bool {
		return d.EventID == id && d.Signature == core.SignValid && d.Err == "" && d.Status >= 200 && d.Status < 300
	})
}

// waitAcked waits, bounded by converge_within, until each of the payment's
// events has a validly signed delivery the handler answered 2xx. It
// reports the events that never got one, with their answers.
func (p *HookPayment) waitAcked(ctx context.Context, e *Env) []string {
	var missing []string
	WaitLog(ctx, e, e.Cfg.ConvergeD(), func() bool {
		ds := p.Deliveries(e)
		missing = missing[:0]
		for _, ev := range p.Events {
			if !Acked(ds, ev.ID) {
				missing = append(missing, fmt.Sprintf("%s %s (%s)", ev.Type, ev.ID, Answers(ds, ev.ID)))
			}
		}
		return len(missing) == 0
	})
	return missing
}

// WaitLog waits until done says so, bounded by within, looking again at
// each delivery fakepsp logs (so a step that must follow an answer, a kill
// right after an ack, follows it within a millisecond or so) and every
// 100 ms. The channel is taken before each look, so no delivery between
// a look and the wait is missed.
func WaitLog(ctx context.Context, e *Env, within time.Duration, done func() bool) bool {
	deadline := time.Now().Add(within)
	for {
		added := e.Local.DeliveryAdded()
		if done() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-added:
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Answers says what the handler answered to one event's deliveries.
func Answers(ds []core.Delivery, id string) string {
	var out []string
	for _, d := range ds {
		if d.EventID != id {
			continue
		}
		switch {
		case d.Err != "":
			out = append(out, "no answer")
		default:
			out = append(out, fmt.Sprint(d.Status))
		}
	}
	if len(out) == 0 {
		return "never delivered"
	}
	return strings.Join(out, ", ")
}

// RequireAcked makes the check inconclusive when some event of the payment
// never got a 2xx: a handler that refuses everything proves nothing.
func (p *HookPayment) RequireAcked(ctx context.Context, e *Env, t *T) bool {
	if missing := p.waitAcked(ctx, e); len(missing) > 0 {
		t.Inconclusive(fmt.Sprintf("the handler never acknowledged (2xx) %s within %s", strings.Join(missing, "; "), e.Cfg.ConvergeD()),
			"is webhook.path right, and does the service verify with the secret idemcheck gave it ($%s)?", e.Hooks.Cfg.SecretEnv)
		return false
	}
	return true
}

// Send delivers one copy of an event to url, outside the schedule.
func (p *HookPayment) Send(ctx context.Context, e *Env, id, url string, o fakepsp.SendOptions) core.Delivery {
	o.URL = url
	o.Timeout = e.Hooks.Cfg.TimeoutD()
	d, err := e.Local.Send(ctx, id, o)
	if err != nil {
		d.Err = err.Error()
	}
	e.Logf("  webhook %s %s via %s (%s) -> %s", id, d.EventType, o.Via, d.Signature, deliveryWords(d))
	return d
}

func deliveryWords(d core.Delivery) string {
	if d.Err != "" {
		return "no answer: " + d.Err
	}
	return fmt.Sprint(d.Status)
}

// WaitLost waits, bounded by converge_within, until each event of the
// payment had a schedule delivery that got no answer; it returns those.
func (p *HookPayment) WaitLost(ctx context.Context, e *Env) []string {
	var lost []string
	WaitLog(ctx, e, e.Cfg.ConvergeD(), func() bool {
		ds := p.Deliveries(e)
		lost = lost[:0]
		for _, id := range p.IDs() {
			if slices.ContainsFunc(ds, func(d core.Delivery) bool { return d.EventID == id && d.Via == "" && d.Err != "" }) {
				lost = append(lost, id)
			}
		}
		return len(lost) == len(p.Events)
	})
	return lost
}

func (p *HookPayment) ChargeOps() []history.Op { return []history.Op{p.Charge} }
