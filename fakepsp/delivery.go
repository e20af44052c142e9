package fakepsp

import (
	"bytes"
	"container/heap"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Delivery is one attempt to deliver an event to an endpoint.
type Delivery struct {
	EventID   string    `json:"event_id"`
	EventType string    `json:"event_type"`
	Endpoint  string    `json:"endpoint"`
	URL       string    `json:"url"`
	Attempt   int       `json:"attempt"`   // 1 for the first try of this copy
	Duplicate bool      `json:"duplicate"` // an extra copy from WebhookDuplicates
	Status    int       `json:"status"`    // 0 when the request itself failed
	Err       string    `json:"error,omitempty"`
	GaveUp    bool      `json:"gave_up"` // failed and past the schedule's horizon
	At        time.Time `json:"at"`      // when the answer (or the error) came
	Started   time.Time `json:"started"` // when the request was sent
	// Via says who sent this copy: "" for the endpoint's own schedule, else
	// the reason a harness gave to Send (a duplicate, a forged event).
	Via string `json:"via,omitempty"`
	// Signature is how the copy was signed: "valid" (the schedule's always
	// are), or what Send was asked to forge.
	Signature string `json:"signature"`
	// SignedAt is the signature's timestamp (unix s) when Send set one.
	SignedAt int64 `json:"signed_at,omitempty"`
}

// delivery is one copy of an event waiting to be (re)sent.
type delivery struct {
	ev      *event
	attempt int
	due     time.Time
	seq     uint64
	planned time.Duration // sum of the backoffs so far: the schedule, not the load, decides when to give up
	dups    int           // extra copies still to send after a success
	dup     bool
	index   int
}

type deliveryQueue []*delivery

func (q deliveryQueue) Len() int { return len(q) }
func (q deliveryQueue) Less(i, j int) bool {
	if !q[i].due.Equal(q[j].due) {
		return q[i].due.Before(q[j].due)
	}
	return q[i].seq < q[j].seq
}
func (q deliveryQueue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index, q[j].index = i, j
}
func (q *deliveryQueue) Push(x any) { d := x.(*delivery); d.index = len(*q); *q = append(*q, d) }
func (q *deliveryQueue) Pop() any {
	old := *q
	d := old[len(old)-1]
	*q, d.index = old[:len(old)-1], -1
	return d
}

// webhookWorker delivers to one endpoint, one attempt at a time, earliest
// due first; failures go back in the queue with exponential backoff.
type webhookWorker struct {
	p      *PSP
	ep     *webhookEndpoint
	client *http.Client
	ctx    context.Context
	cancel context.CancelFunc

	mu   sync.Mutex
	q    deliveryQueue
	seq  uint64
	held *delivery // WebhookOutOfOrder: waits for the next event to overtake it
	wake chan struct{}
}

func newWorker(p *PSP, ep *webhookEndpoint) *webhookWorker {
	// The PSP's lifetime, or shorter when the endpoint is deleted.
	ctx, cancel := context.WithCancel(p.ctx)
	return &webhookWorker{p: p, ep: ep, ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1),
		// No keep-alive: an idle connection would outlive Close.
		client: &http.Client{Timeout: p.cfg.WebhookSchedule.Timeout, Transport: &http.Transport{DisableKeepAlives: true}}}
}

func (w *webhookWorker) stop() { w.cancel() }

func (w *webhookWorker) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *webhookWorker) pushLocked(d *delivery) {
	w.seq++
	d.seq = w.seq
	heap.Push(&w.q, d)
}

func (w *webhookWorker) enqueue(ev *event) {
	now := time.Now()
	d := &delivery{ev: ev, attempt: 1, due: now}
	if f := w.p.faults.Fire(WebhookDuplicates, ev.target); f != nil {
		d.dups = f.Spec().Extra
	}
	w.mu.Lock()
	switch {
	case w.held != nil:
		// The held event goes right after this one: out of order.
		w.pushLocked(d)
		h := w.held
		w.held = nil
		w.seq++
		h.seq, h.due = w.seq, now
		heap.Fix(&w.q, h.index)
	case w.p.faults.Fire(WebhookOutOfOrder, ev.target) != nil:
		d.due = now.Add(w.p.cfg.WebhookSchedule.Base) // flush if no event follows
		w.held = d
		w.pushLocked(d)
	default:
		w.pushLocked(d)
	}
	w.mu.Unlock()
	w.poke()
}

// next pops the earliest delivery if it is due, else says how long to wait.
func (w *webhookWorker) next() (*delivery, time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.q) == 0 {
		return nil, -1
	}
	if wait := time.Until(w.q[0].due); wait > 0 {
		return nil, wait
	}
	d := heap.Pop(&w.q).(*delivery)
	if d == w.held {
		w.held = nil
	}
	return d, 0
}

func (w *webhookWorker) run() {
	defer w.p.wg.Done()
	defer w.cancel()
	for {
		if !w.p.pause.Wait(w.ctx, w.ctx) {
			return
		}
		d, wait := w.next()
		if d != nil {
			w.attempt(d)
			continue
		}
		var timer *time.Timer
		var fire <-chan time.Time
		if wait > 0 {
			timer = time.NewTimer(wait)
			fire = timer.C
		}
		select {
		case <-w.wake:
		case <-fire:
		case <-w.ctx.Done():
		}
		if timer != nil {
			timer.Stop()
		}
		if w.ctx.Err() != nil {
			return
		}
	}
}

// attempt sends d once and schedules what follows: a retry, a duplicate, or nothing.
func (w *webhookWorker) attempt(d *delivery) {
	started := time.Now()
	status, err := w.post(d.ev)
	if w.ctx.Err() != nil {
		return // closing: the attempt was cut short, not answered
	}
	rec := Delivery{EventID: d.ev.id, EventType: d.ev.typ, Endpoint: w.ep.id, URL: w.ep.url, Attempt: d.attempt,
		Duplicate: d.dup, Status: status, At: time.Now(), Started: started, Signature: SignValid}
	if err != nil {
		rec.Err = err.Error()
	}
	sched := w.p.cfg.WebhookSchedule
	w.mu.Lock()
	defer func() { w.mu.Unlock(); w.p.dlog.add(rec) }()
	if err == nil && statusOK(status) {
		if d.dups > 0 {
			now := time.Now()
			w.pushLocked(&delivery{ev: d.ev, attempt: 1, due: now, dups: d.dups - 1, dup: true})
		}
		return
	}
	backoff := time.Duration(float64(sched.Base) * math.Pow(sched.Factor, float64(d.attempt-1)))
	if d.planned+backoff > sched.Horizon {
		rec.GaveUp = true
		return
	}
	d.planned += backoff
	d.attempt++
	d.due = time.Now().Add(backoff)
	w.pushLocked(d)
}

// post sends ev signed as Stripe signs: t=<unix>,v1=HMAC-SHA256(secret, "t.body").
// t is wall-clock time, not the PSP clock: receivers check it against their
// own wall clock (stripe-go allows 300 s), whatever a suite did to PSP time.
func (w *webhookWorker) post(ev *event) (int, error) {
	raw := ev.rawFor(w.ep.apiVersion)
	return postEvent(w.ctx, w.client, w.ep.url, raw, SignatureHeader(w.p.whSecret, time.Now(), raw))
}

// postEvent sends one delivery; an empty sig sends no Stripe-Signature.
func postEvent(ctx context.Context, client *http.Client, url string, raw []byte, sig string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(raw))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("User-Agent", "Stripe/1.0 (+https://stripe.com/docs/webhooks)")
	if sig != "" {
		req.Header.Set("Stripe-Signature", sig)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// SignatureHeader is the Stripe-Signature of body signed with secret at t.
func SignatureHeader(secret string, t time.Time, body []byte) string {
	return "t=" + strconv.FormatInt(t.Unix(), 10) + ",v1=" + sign(secret, t.Unix(), body)
}

func sign(secret string, t int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(t, 10)))
	m.Write([]byte("."))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}
