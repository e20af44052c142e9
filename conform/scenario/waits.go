package scenario

import (
	"context"
	"sync"
	"time"
)

// The reasons a run waits on purpose. A run's wall time is its requests, its
// faults and these waits; the report lists them so that a user who asks why a
// run took 48 s reads which part the design demands (the quiet period, the
// settle periods, a key window) and which part is idemcheck's own work.
const (
	// WaitQuiet is the quiet period before the final recount.
	WaitQuiet = "quiet period"
	// WaitSettle is a check waiting for the effects (charges, credits) to
	// stay unchanged for the settle period before it judges them.
	WaitSettle = "settle"
	// WaitWindow is time let pass for a key window or retry horizon to end.
	WaitWindow = "key window"
	// WaitBackoff is a client's pause between retries of an unfinished
	// request (converge_within bounds them).
	WaitBackoff = "retry backoff"
	// WaitHeld is a request whose dependency's reply a fault holds, until
	// the service's own timeout gives up on it (A1's held PSP reply).
	WaitHeld = "reply held"
)

// waitOrder is the order the reasons are listed in.
var waitOrder = []string{WaitQuiet, WaitSettle, WaitWindow, WaitBackoff, WaitHeld}

// waits sums the time spent in each reason. Checks that wait in several
// goroutines at once (a chaos run) add each goroutine's wait, so the sum can
// exceed the wall time it overlaps.
type waits struct {
	mu sync.Mutex
	by map[string]time.Duration
}

func (w *waits) add(reason string, d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.by == nil {
		w.by = map[string]time.Duration{}
	}
	w.by[reason] += d
}

// Wait is the time a run waited for one reason.
type Wait struct {
	Reason string        `json:"reason"`
	Total  time.Duration `json:"total_ns"`
}

// Waits lists the time the run waited on purpose so far, by reason, in a
// fixed order; a reason it never waited for is left out.
func (e *Env) Waits() []Wait {
	e.waited.mu.Lock()
	defer e.waited.mu.Unlock()
	var out []Wait
	for _, r := range waitOrder {
		if d, ok := e.waited.by[r]; ok {
			out = append(out, Wait{Reason: r, Total: d})
		}
	}
	return out
}

// SumWaits is the time ws waited for reason ("" for every reason).
func SumWaits(ws []Wait, reason string) time.Duration {
	var d time.Duration
	for _, w := range ws {
		if reason == "" || w.Reason == reason {
			d += w.Total
		}
	}
	return d
}

// NoteWait records a wait for reason that began at start.
func (e *Env) NoteWait(reason string, start time.Time) {
	e.waited.add(reason, time.Since(start))
}

// sleepFor sleeps d (or until ctx ends) and records it under reason.
func (e *Env) sleepFor(ctx context.Context, reason string, d time.Duration) error {
	defer e.NoteWait(reason, time.Now())
	return SleepCtx(ctx, d)
}
