package fakepsp

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// How a copy sent by Send is signed (core's names: Delivery.Signature
// records them for every dialect).
const (
	SignValid  = core.SignValid  // the endpoint secret, at SignedAt (default now)
	SignWrong  = core.SignWrong  // a well-formed header made with another secret
	SignAbsent = core.SignAbsent // no Stripe-Signature header
)

// Delivery is one attempt to deliver an event to an endpoint (core.Delivery:
// the same record, and the same JSON, for every dialect).
type Delivery = core.Delivery

// SendOptions says where and how Send delivers one copy of an event.
type SendOptions struct {
	URL string
	// Signature is SignValid (default), SignWrong or SignAbsent.
	Signature string
	// SignedAt is the signature's timestamp; zero means now. A time outside
	// the receiver's tolerance makes a replayed (or stale) delivery.
	SignedAt time.Time
	// Via is logged with the delivery: why this copy was sent.
	Via string
	// Timeout bounds the attempt; default the schedule's Timeout.
	Timeout time.Duration
}

// Send delivers one copy of an event now, outside every schedule, signed as
// o says, and logs it in the delivery log with o.Via. A harness sends
// duplicates, concurrent copies and forged events through it, so the
// delivery log stays the one record of what reached the handler.
func (p *PSP) Send(ctx context.Context, eventID string, o SendOptions) (Delivery, error) {
	ev, found := p.api.Event(eventID)
	if !found {
		return Delivery{}, fmt.Errorf("fakepsp: no event %s", eventID)
	}
	if ev.Err != nil {
		return Delivery{}, ev.Err
	}
	if err := core.CheckEndpointURL(o.URL); err != nil {
		return Delivery{}, err
	}
	if o.Timeout <= 0 {
		o.Timeout = p.cfg.WebhookSchedule.Timeout
	}
	at := o.SignedAt
	if at.IsZero() {
		at = time.Now()
	}
	var secret string
	switch o.Signature {
	case "", SignValid:
		o.Signature, secret = SignValid, p.whSecret
	case SignWrong:
		secret = p.dialect.Webhooks().NewSecret()
	case SignAbsent:
	default:
		return Delivery{}, fmt.Errorf("fakepsp: unknown signature mode %q", o.Signature)
	}
	client := &http.Client{Timeout: o.Timeout, Transport: &http.Transport{DisableKeepAlives: true}}
	started := time.Now()
	var ans core.Answer
	req, err := p.dialect.Webhooks().Request(ctx, o.URL, ev.Raw, secret, at)
	if err == nil {
		ans, err = core.Post(client, req)
	}
	rec := Delivery{EventID: ev.ID, EventType: ev.Type, URL: o.URL, Attempt: 1, Status: ans.Status, At: time.Now(),
		Started: started, Via: o.Via, Signature: o.Signature}
	if !o.SignedAt.IsZero() {
		rec.SignedAt = o.SignedAt.Unix()
	}
	if err != nil {
		rec.Err = err.Error()
	}
	p.dlog.Add(rec)
	return rec, nil
}
