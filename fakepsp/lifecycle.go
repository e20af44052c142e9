package fakepsp

import ()

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
