package fakepsp

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// host is what this PSP lends its dialect (core.Host): the lock, clock,
// faults and ground truth of the money, the request lifecycle, rate
// limits, the call log, the search lag and the delivery engine.
type host struct{ p *PSP }

func (h host) Ops() core.Ops { return h.p.ops() }
func (h host) Enter() bool   { return h.p.enter() }
func (h host) Leave()        { h.p.leave() }

func (h host) Wait(ctx context.Context) bool { return h.p.pause.Wait(ctx, h.p.ctx) }

func (h host) Allow(account, endpoint string) bool { return h.p.limiter.Allow(account, endpoint) }

func (h host) KeyWindow() time.Duration { return h.p.cfg.KeyWindow }

func (h host) LogCall(c core.Call) { h.p.calls.Add(c) }

func (h host) SearchDelay(id string, i int) time.Duration { return h.p.searchDelay(id, i) }

func (h host) WebhookSecret() string { return h.p.whSecret }

// StartWorker starts one endpoint's delivery engine, each copy signed with
// t the wall-clock time, not the PSP clock: receivers check it against
// their own wall clock (stripe-go allows 300 s), whatever a suite did to
// PSP time. The dialect calls it under p.mu; it takes no lock.
func (h host) StartWorker(endpointID, url string, render func(core.Event) ([]byte, error)) *core.Worker {
	p := h.p
	w := core.NewWorker(p.ctx, core.WorkerConfig{EndpointID: endpointID, URL: url, Schedule: p.cfg.WebhookSchedule,
		Faults: p.faults, Pause: p.pause, Log: p.dlog, Accepted: p.dialect.Webhooks().Accepted,
		Freedoms: core.Freedoms(p.cfg.WebhookFreedoms), Counts: &p.freedoms,
		Send: func(ctx context.Context, client *http.Client, e core.Event) (core.Answer, error) {
			body, err := render(e)
			if err != nil {
				return core.Answer{}, err
			}
			req, err := p.dialect.Webhooks().Request(ctx, url, body, p.whSecret, time.Now())
			if err != nil {
				return core.Answer{}, err
			}
			return core.Post(client, req)
		}})
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		w.Run()
	}()
	return w
}

// Dispatch enqueues ev at each worker, unless a Hold takes it there.
func (h host) Dispatch(ev core.Event, to []*core.Worker) {
	p := h.p
	p.mu.Lock()
	holds := append([]*Hold(nil), p.holds...)
	p.mu.Unlock()
	for _, w := range to {
		if !slices.ContainsFunc(holds, func(hd *Hold) bool { return hd.h.Take(ev, w) }) {
			w.Enqueue(ev)
		}
	}
}
