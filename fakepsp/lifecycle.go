package fakepsp

import (
	"context"
	"sync"
	"time"
)

// enter counts a request in; false once Close has begun, so Close can wait
// for every request (and every goroutine a request starts) to end.
func (p *PSP) enter() bool {
	p.life.Lock()
	defer p.life.Unlock()
	if p.stopping {
		return false
	}
	p.inflight++
	return true
}

func (p *PSP) leave() {
	p.life.Lock()
	defer p.life.Unlock()
	p.inflight--
	if p.inflight == 0 {
		p.idle.Broadcast()
	}
}

// drain stops admitting requests and waits for those in flight.
func (p *PSP) drain() {
	p.life.Lock()
	defer p.life.Unlock()
	p.stopping = true
	for p.inflight > 0 {
		p.idle.Wait()
	}
}

// sleep waits d unless the PSP closes first; false when it closed.
func (p *PSP) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-p.ctx.Done():
		return false
	}
}

// pauser blocks work while the PSP is paused.
type pauser struct {
	mu      sync.Mutex
	running chan struct{} // closed while running, open while paused
}

func newPauser() *pauser {
	ch := make(chan struct{})
	close(ch)
	return &pauser{running: ch}
}

func (ps *pauser) set(paused bool) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	select {
	case <-ps.running: // running now
		if paused {
			ps.running = make(chan struct{})
		}
	default: // paused now
		if !paused {
			close(ps.running)
		}
	}
}

func (ps *pauser) paused() bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	select {
	case <-ps.running:
		return false
	default:
		return true
	}
}

// wait returns true once running; false if either context ends first.
func (ps *pauser) wait(a, b context.Context) bool {
	ps.mu.Lock()
	ch := ps.running
	ps.mu.Unlock()
	select {
	case <-ch:
		return true
	case <-a.Done():
		return false
	case <-b.Done():
		return false
	}
}
