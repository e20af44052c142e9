package scenario

import (
	"sync"
	"time"
)

// harnessWindow is when a fault of the harness takes the service away
// from every client at once (a kill and its restart, a freeze, a crash at
// a failpoint, a failover), so that converge_within, which counts "after a
// fault", starts for every client when the service is back, not while the
// harness is still restarting it: on a loaded machine a restart can eat a
// client's whole window, and the verdict would blame the service for the
// harness's time.
type harnessWindow struct {
	mu      sync.Mutex
	on      int
	endedAt time.Time
}

// HarnessFault marks such a fault on; the returned func marks it over
// (once its undo returned: the service serves again).
func (e *Env) HarnessFault() (off func()) {
	e.harness.mu.Lock()
	e.harness.on++
	e.harness.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			e.harness.mu.Lock()
			defer e.harness.mu.Unlock()
			e.harness.on--
			e.harness.endedAt = time.Now()
		})
	}
}

// convergeAfterHarness is the latest a client converging since start may
// keep retrying: converge_within after the last harness fault ended (or
// from now, while one is on), never past start + converge_within +
// harnessCap, so a restart that never ends cannot hold a check forever.
func (e *Env) convergeAfterHarness(start time.Time) time.Time {
	c := e.Cfg.ConvergeD()
	deadline := start.Add(c)
	e.harness.mu.Lock()
	on, ended := e.harness.on, e.harness.endedAt
	e.harness.mu.Unlock()
	switch {
	case on > 0:
		deadline = time.Now().Add(c)
	case ended.After(start):
		deadline = ended.Add(c)
	}
	if lim := start.Add(c + harnessCap); deadline.After(lim) {
		deadline = lim
	}
	if min := start.Add(c); deadline.Before(min) {
		deadline = min
	}
	return deadline
}

// harnessCap bounds how long a harness fault may extend a client's
// converge window: a restart waits at most a minute (faults.KillRestart).
const harnessCap = 90 * time.Second
