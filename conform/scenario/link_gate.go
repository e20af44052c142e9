package scenario

import "sync"

// linkGate keeps chaos's latency bursts off the links while a network
// fault is armed on them. Both put toxics on the same Toxiproxy links, and
// a burst that holds a reply back (bandwidth, latency) can keep it from the
// fault's toxic until the fault is undone: the fault then never fires and
// an honest run ends inconclusive for a reason the service had no part in
// (seed 11 of the reference: dependency-reply-lost under a burst). A fault
// ends the burst on the links before it arms; a burst does not start while
// a fault is armed.
type linkGate struct {
	mu     sync.Mutex
	faults int
	burst  *activeBurst
}

type activeBurst struct {
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

// LinkFaultOn ends any burst on the links and keeps new ones off until the
// returned func is called (once the fault is undone).
func (e *Env) LinkFaultOn() (off func()) {
	g := &e.links
	g.mu.Lock()
	g.faults++
	b := g.burst
	g.mu.Unlock()
	if b != nil {
		b.stopOnce.Do(func() { close(b.stop) })
		<-b.done
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			g.faults--
			g.mu.Unlock()
		})
	}
}

// BurstStart says whether a burst may go on the links now; if so, stop is
// closed when a network fault wants them (the burst must then come off),
// and end must be called once its toxic is removed.
func (e *Env) BurstStart() (stop <-chan struct{}, end func(), ok bool) {
	g := &e.links
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.faults > 0 {
		return nil, nil, false
	}
	b := &activeBurst{stop: make(chan struct{}), done: make(chan struct{})}
	g.burst = b
	return b.stop, func() {
		g.mu.Lock()
		if g.burst == b {
			g.burst = nil
		}
		g.mu.Unlock()
		close(b.done)
	}, true
}
