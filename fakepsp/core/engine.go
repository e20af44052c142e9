package core

import (
	"container/heap"
	"context"
	"net/http"
	"slices"
	"sync"
	"time"
)

// delivery is one copy of an event waiting to be (re)sent.
type delivery struct {
	ev      Event
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

// Worker delivers to one endpoint, one attempt at a time, earliest due
// first; failures go back in the queue with exponential backoff. What one
// copy looks like on the wire, and which answer counts as received, is the
// dialect's (WorkerConfig.Send, WorkerConfig.Accepted).
type Worker struct {
	cfg    WorkerConfig
	client *http.Client
	ctx    context.Context
	cancel context.CancelFunc

	mu   sync.Mutex
	q    deliveryQueue
	seq  uint64
	held *delivery // WebhookOutOfOrder: waits for the next event to overtake it
	// events counts the events enqueued: the freedoms draw by this place.
	events  uint64
	current *delivery // the attempt being sent
	wake    chan struct{}
}

// WorkerConfig is what a Worker needs: the endpoint, the schedule, the
// PSP's faults, pause switch and delivery log, and the dialect's wire.
type WorkerConfig struct {
	EndpointID string
	URL        string
	Schedule   Schedule
	Faults     *Faults
	Pause      *Pauser
	Log        *DeliveryLog
	// Freedoms the schedule takes with the events Enqueue is given, counted
	// in Counts (which a PSP shares among its workers; nil: a fresh one).
	Freedoms Freedoms
	Counts   *FreedomCounter
	// Send renders ev for this endpoint, signs it and posts it with client.
	Send func(ctx context.Context, client *http.Client, ev Event) (Answer, error)
	// Accepted says whether an answer counts as received.
	Accepted func(Answer) bool
}

// NewWorker makes a worker that lives as long as ctx (the PSP's lifetime),
// or shorter when stopped (its endpoint deleted). The caller runs Run.
func NewWorker(ctx context.Context, cfg WorkerConfig) *Worker {
	ctx, cancel := context.WithCancel(ctx)
	if cfg.Counts == nil {
		cfg.Counts = &FreedomCounter{}
	}
	return &Worker{cfg: cfg, ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1),
		// No keep-alive: an idle connection would outlive Close.
		client: &http.Client{Timeout: cfg.Schedule.Timeout, Transport: &http.Transport{DisableKeepAlives: true}}}
}

// Stop ends the worker; what it still holds is never sent.
func (w *Worker) Stop() { w.cancel() }

func (w *Worker) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *Worker) pushLocked(d *delivery) {
	w.seq++
	d.seq = w.seq
	heap.Push(&w.q, d)
}

// Enqueue schedules ev's first attempt now, applying the webhook faults
// that match it (duplicates, out of order) and the freedoms (freedoms.go).
func (w *Worker) Enqueue(ev Event) { w.enqueue(ev, true) }

// enqueue schedules ev. drawn says the schedule raised it (not a Hold's
// release): only then may the freedoms take it. A fault armed on it goes
// first, so a harness that armed one sees it fire.
func (w *Worker) enqueue(ev Event, drawn bool) {
	now := time.Now()
	d := &delivery{ev: ev, attempt: 1, due: now}
	fr, c := w.cfg.Freedoms, w.cfg.Counts
	w.mu.Lock()
	n := w.events
	w.events++
	if drawn {
		c.events.Add(1)
	}
	if f := w.cfg.Faults.Fire(WebhookDuplicates, ev.FaultTarget()); f != nil {
		d.dups = f.Spec().Extra
	} else if drawn && fr.Draw("duplicate", n, fr.Duplicates) {
		d.dups = 1
		c.duplicated.Add(1)
	}
	switch {
	case w.held != nil:
		// The held event goes right after this one: out of order.
		w.pushLocked(d)
		h := w.held
		w.held = nil
		w.seq++
		h.seq, h.due = w.seq, now
		heap.Fix(&w.q, h.index)
	case w.cfg.Faults.Fire(WebhookOutOfOrder, ev.FaultTarget()) != nil:
		w.holdLocked(d, now)
	case drawn && fr.Draw("out of order", n, fr.OutOfOrder):
		// Late: the events raised meanwhile overtake it.
		c.reordered.Add(1)
		d.due = now.Add(fr.Lateness(n))
		w.pushLocked(d)
	default:
		w.pushLocked(d)
	}
	w.mu.Unlock()
	w.poke()
}

// holdLocked keeps d back until the next event overtakes it.
func (w *Worker) holdLocked(d *delivery, now time.Time) {
	d.due = now.Add(w.cfg.Schedule.Base) // flush if no event follows
	w.held = d
	w.pushLocked(d)
}

// Pending counts the copies of the events in ids still queued (late,
// retrying) or being sent: a judge of what they caused waits for none.
func (w *Worker) Pending(ids []string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, d := range append(w.q[:len(w.q):len(w.q)], w.current) {
		if d != nil && slices.Contains(ids, d.ev.EventID()) {
			n++
		}
	}
	return n
}

// next pops the earliest delivery if it is due, else says how long to wait.
func (w *Worker) next() (*delivery, time.Duration) {
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
	w.current = d
	return d, 0
}

// Run delivers until the worker stops or its context ends.
func (w *Worker) Run() {
	defer w.cancel()
	for {
		if !w.cfg.Pause.Wait(w.ctx, w.ctx) {
			return
		}
		d, wait := w.next()
		if d != nil {
			w.attempt(d)
			w.mu.Lock()
			w.current = nil
			w.mu.Unlock()
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
func (w *Worker) attempt(d *delivery) {
	started := time.Now()
	ans, err := w.cfg.Send(w.ctx, w.client, d.ev)
	if w.ctx.Err() != nil {
		return // closing: the attempt was cut short, not answered
	}
	rec := Delivery{EventID: d.ev.EventID(), EventType: d.ev.EventType(), Endpoint: w.cfg.EndpointID, URL: w.cfg.URL, Attempt: d.attempt,
		Duplicate: d.dup, Status: ans.Status, At: time.Now(), Started: started, Signature: SignValid}
	if err != nil {
		rec.Err = err.Error()
	}
	sched := w.cfg.Schedule
	w.mu.Lock()
	defer func() { w.mu.Unlock(); w.cfg.Log.Add(rec) }()
	if err == nil && w.cfg.Accepted(ans) {
		if d.dups > 0 {
			now := time.Now()
			w.pushLocked(&delivery{ev: d.ev, attempt: 1, due: now, dups: d.dups - 1, dup: true})
		}
		return
	}
	backoff := sched.Backoff(d.attempt)
	if d.planned+backoff > sched.Horizon {
		rec.GaveUp = true
		return
	}
	d.planned += backoff
	d.attempt++
	d.due = time.Now().Add(backoff)
	w.pushLocked(d)
}
