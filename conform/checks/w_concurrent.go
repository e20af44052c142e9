package checks

import (
	"context"
	"fmt"
	"sync"

	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// runWConcurrent: each event's first copies sent at once, two to every
// instance (four to a lone one), before the schedule's own delivery.
func runWConcurrent(ctx context.Context, e *scenario.Env, t *scenario.T) {
	p, ok := scenario.Pay(ctx, e, t, true)
	if !ok {
		return
	}
	urls := e.Hooks.URLs
	per := 2
	if len(urls) == 1 {
		per = 4
	}
	var mu sync.Mutex
	sent := map[string][]core.Delivery{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, ev := range p.Events {
		for i, u := range urls {
			for c := 0; c < per; c++ {
				wg.Add(1)
				go func(id, u string, inst int) {
					defer wg.Done()
					<-start
					d := p.Send(ctx, e, id, u, fakepsp.SendOptions{Via: fmt.Sprintf("concurrent copy to instance %d", inst)})
					mu.Lock()
					sent[id] = append(sent[id], d)
					mu.Unlock()
				}(ev.ID, u, i)
			}
		}
	}
	close(start)
	wg.Wait()
	p.Release()
	overlapped := 0
	for _, ds := range sent {
		if inFlightTogether(ds) {
			overlapped++
		}
	}
	if overlapped == 0 {
		t.Inconclusive("no two copies of one event were in flight at once (by fakepsp's clock)",
			"the handler answered each copy before the next was sent")
	}
	if !p.RequireAcked(ctx, e, t) {
		return
	}
	t.Judge(ctx, nil, p.In)
	t.JudgeCredits(ctx, p)
	t.Passf("%d copies of each of %d event(s) at once to %d instance(s); %d event(s) had copies in flight together", per*len(urls), len(p.Events), len(urls), overlapped)
}

// inFlightTogether: two answered copies whose request and answer overlap.
func inFlightTogether(ds []core.Delivery) bool {
	for i := range ds {
		for j := i + 1; j < len(ds); j++ {
			a, b := ds[i], ds[j]
			if a.Started.Before(b.At) && b.Started.Before(a.At) {
				return true
			}
		}
	}
	return false
}
