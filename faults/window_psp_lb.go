package faults

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// PSPWindow: a fakepsp outcome for the intent's charge with the webhook tier
// down while fakepsp executes it, so the success event's first delivery fails
// and only the resolver can settle what the API could not (A1): a resolver
// that only replays the key never learns of a charge behind a saved 500.
type PSPWindow struct {
	Label string
	PSP   PSPFault
	// Times is the fakepsp fault's count (0: every execution until Undo).
	Times int
	// What the PSP did, for the story.
	What string
}

func (f PSPWindow) Name() string   { return f.Label }
func (f PSPWindow) Family() Family { return FamilyWindow }
func (f PSPWindow) Applies(sys *System) (bool, string) {
	switch {
	case sys.PSP == "":
		return false, "the target does not use a fakepsp the harness started"
	case len(sys.TiersOf("webhook")) == 0:
		return false, "no webhook tier the harness can take down: the PSP fault alone is " + f.PSP.Label
	}
	return true, ""
}

func (f PSPWindow) Inject(ctx context.Context, sys *System, s Scope) (Injection, error) {
	if s.Amount == 0 {
		return nil, fmt.Errorf("%s: the intent has no amount to aim at", f.Label)
	}
	hooks, err := killWebhooks(sys)
	if err != nil {
		_ = restartAll(ctx, hooks)
		return nil, fmt.Errorf("%s: %w", f.Label, err)
	}
	pf, err := f.PSP.Arm(ctx, sys.PSP, Scope{Amount: s.Amount, Times: f.Times})
	if err != nil {
		_ = restartAll(ctx, hooks)
		return nil, fmt.Errorf("%s: %w", f.Label, err)
	}
	inj := &windowInjection{}
	live := func() int64 {
		n, _ := pf.fired(context.Background())
		if n > 0 && deadAll(hooks) {
			return 1
		}
		return 0
	}
	inj.fired = live
	inj.story = func() string {
		return fmt.Sprintf("%s: fakepsp %s (amount %d) while the webhook tier was down: its success event waits for fakepsp's retry, only the resolver can settle it",
			f.Label, f.What, s.Amount)
	}
	inj.undo = func() error {
		// Wait for the charge (the intent's copies may have been refused
		// before any reached the PSP), then leave the webhook down a little
		// longer for the event's first delivery to fail on it.
		wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		if pf.WaitFired(wctx, 1) == nil {
			time.Sleep(webhookGrace)
		}
		cancel()
		wasFired := live()
		inj.fired = func() int64 { return wasFired }
		return errors.Join(pf.Undo(), restartAll(ctx, hooks))
	}
	return inj, nil
}

// LBHoldPastDeadline: the late original (B1-B3). The LB is pinned to one API
// server and holds its queue; once the LB reports the intent's request
// stamped and waiting, everything else goes to another server, and the held
// request is let go after Hold, past the service's deadline counted from the
// LB's stamp: a service with no deadline runs it late.
type LBHoldPastDeadline struct {
	// Hold is how long the request waits in the LB's queue: past the
	// reference's deadline (5 story s, 0.75 s at the default scale).
	Hold time.Duration
}

func (f LBHoldPastDeadline) Name() string   { return "window-lb-held-past-deadline" }
func (f LBHoldPastDeadline) Family() Family { return FamilyWindow }
func (f LBHoldPastDeadline) Applies(sys *System) (bool, string) {
	if _, ok := lbTier(sys); !ok {
		return false, "no load balancer with an admin endpoint to hold a request in"
	}
	if len(sys.TiersOf("api")) < 2 {
		return false, "fewer than two API servers: the retry needs another instance"
	}
	return true, ""
}

func (f LBHoldPastDeadline) Inject(ctx context.Context, sys *System, s Scope) (Injection, error) {
	lb, _ := lbTier(sys)
	n := len(sys.TiersOf("api"))
	b := pick(s, n)
	other := (b + 1) % n
	lockWindow()
	unlock := sync.OnceFunc(lbWindow.Unlock)
	restore := func() {
		_ = lbCall(lb, "DELETE", fmt.Sprintf("/hold?backend=%d", b))
		_ = lbCall(lb, "PUT", "/route?pin=rr")
	}
	for _, r := range []string{fmt.Sprintf("/route?pin=%d", b), fmt.Sprintf("/hold?backend=%d", b)} {
		if err := lbCall(lb, "PUT", r); err != nil {
			restore()
			unlock()
			return nil, fmt.Errorf("%s: %w", f.Name(), err)
		}
	}
	var seen atomic.Int64 // requests the LB reported waiting in the held queue
	var heldFor atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		start := time.Now()
		for time.Since(start) < 3*time.Second && ctx.Err() == nil {
			if q, err := lbQueued(lb, b); err == nil && q > 0 {
				seen.Store(q)
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		// Everything after the held request goes elsewhere.
		_ = lbCall(lb, "PUT", fmt.Sprintf("/route?pin=%d", other))
		if seen.Load() > 0 {
			since := time.Now()
			time.Sleep(f.Hold)
			heldFor.Store(int64(time.Since(since)))
		}
		_ = lbCall(lb, "DELETE", fmt.Sprintf("/hold?backend=%d", b))
	}()
	inj := &windowInjection{}
	inj.fired = func() int64 {
		if seen.Load() > 0 && time.Duration(heldFor.Load()) >= f.Hold {
			return 1
		}
		return 0
	}
	inj.story = func() string {
		return fmt.Sprintf("%s: the LB held the intent's request in api server %d's queue for %s after stamping it (past the deadline), the rest went to api server %d",
			f.Name(), b+1, f.Hold, other+1)
	}
	inj.undo = func() error {
		<-done
		restore()
		unlock()
		return nil
	}
	return inj, nil
}
