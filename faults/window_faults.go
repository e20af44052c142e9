package faults

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// The window family: faults aimed at the windows where repeats are born, as
// etcd's robustness failpoints and Jepsen's nemeses aim theirs. Each one
// waits for the intent's own request to reach a point seen from outside the
// tier under test (fakepsp executed the intent's charge; the LB queued it),
// strikes there, and keeps away whatever would settle the payment behind the
// client's back (the resolver's sweep, fakepsp's success webhook) while the
// client's retries arrive. Each reports Fired from that outside evidence only
// and tells its Story: the intent and the window it hit.
var windowFaults = []Fault{
	OwnerAtCharge{Freeze: false, Tail: 2500 * time.Millisecond},
	OwnerAtCharge{Freeze: true, Tail: 2500 * time.Millisecond},
	PSPWindow{Label: "window-psp-500-saved-no-webhook", PSP: PSP500AfterCharge, Times: 1,
		What: "charged and saved a 500 that it replays under the key"},
	PSPWindow{Label: "window-psp-reply-lost-every-execution-no-webhook", PSP: PSPReplyLost,
		What: "charged and lost the reply, as it will for every execution of that amount until Undo"},
	PSPWindow{Label: "window-psp-held-past-timeout-no-webhook", PSP: PSPHoldReply, Times: 1,
		What: "charged and held the reply past the service's own PSP timeout"},
	LBHoldPastDeadline{Hold: 1200 * time.Millisecond},
}

// lbWindow serializes the windows that steer the LB (a pin and a hold are
// one setting of the LB each), from Inject to the end of their tail.
var lbWindow sync.Mutex

// thawedAt is when the last window let the resolver go (under lbWindow).
var thawedAt time.Time

// settleGap is how long the settlers run between two windows that freeze
// them: back to back, windows would starve the resolver and leave every
// other intent's unknown payment unsettled for the client's whole retry
// window, a failure of the harness's making, not of the service.
const settleGap = 1500 * time.Millisecond

// lockWindow takes lbWindow once the settlers had settleGap to run.
func lockWindow() {
	lbWindow.Lock()
	if wait := time.Until(thawedAt.Add(settleGap)); wait > 0 {
		time.Sleep(wait)
	}
}

// webhookGrace is how long a window leaves the webhook tier dead after
// fakepsp executed the intent's charge, so that the success event's first
// delivery meets the dead tier and fails (fakepsp retries it on its own
// schedule, a minute later by default) before the tier is back.
const webhookGrace = 200 * time.Millisecond

// downs counts the windows that keep each tier dead, by tier name: two
// windows at once (the window family is not run alone) share one kill and
// one restart.
var downs = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

// killWebhooks kills every webhook tier: fakepsp's deliveries meanwhile fail
// and wait for fakepsp's next retry, so the webhook cannot settle a payment
// charged now. It returns the tiers it holds down, for restartAll.
func killWebhooks(sys *System) ([]Tier, error) {
	var out []Tier
	for _, t := range sys.TiersOf("webhook") {
		downs.Lock()
		var err error
		if downs.n[t.Name] == 0 {
			err = t.Proc.Kill()
		}
		if err == nil {
			downs.n[t.Name]++
		}
		downs.Unlock()
		if err != nil {
			return out, fmt.Errorf("kill %s: %w", t.Name, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// restartAll brings back the tiers a window holds down, once no other
// window holds them.
func restartAll(ctx context.Context, ts []Tier) error {
	var errs []error
	for _, t := range ts {
		downs.Lock()
		downs.n[t.Name]--
		last := downs.n[t.Name] <= 0
		if last {
			delete(downs.n, t.Name)
		}
		downs.Unlock()
		if !last {
			continue
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		if err := t.Proc.Restart(rctx); err != nil {
			errs = append(errs, restartFailed(t.Name, err))
		}
		cancel()
	}
	return errors.Join(errs...)
}

// deadAll says whether every tier of ts is dead, as the OS reports it.
func deadAll(ts []Tier) bool {
	for _, t := range ts {
		if !t.Proc.Exited() {
			return false
		}
	}
	return true
}

// OwnerAtCharge: the takeover window (A3, A4). The LB is pinned to one API
// server, the owner; the webhook tier is down and the resolver frozen; when
// fakepsp has executed the intent's charge (and holds its reply), the owner
// is killed (or frozen: a zombie that wakes after the takeover) and the LB
// re-pinned to another server. The client's retries then meet the claim's
// lease, and after it a takeover on the other server, with nothing else able
// to settle the payment first: the resolver stays frozen for Tail after Undo,
// and the success event's delivery failed on the dead webhook.
type OwnerAtCharge struct {
	// Freeze stops the owner instead of killing it; it wakes at the tail's
	// end and finishes its request (the zombie of A4).
	Freeze bool
	// Tail is how long after Undo the resolver stays frozen (and the zombie
	// asleep): the reference's lease and margin (6 story s, 0.9 s at the
	// default scale) plus the client's first retries.
	Tail time.Duration
}

func (f OwnerAtCharge) Name() string {
	if f.Freeze {
		return "window-owner-frozen-in-charge"
	}
	return "window-owner-killed-in-charge"
}
func (f OwnerAtCharge) Family() Family { return FamilyWindow }

func (f OwnerAtCharge) apis(sys *System) []Tier {
	var out []Tier
	for _, t := range sys.TiersOf("api") {
		if !f.Freeze || CanPause(t.Proc) {
			out = append(out, t)
		}
	}
	return out
}

func (f OwnerAtCharge) Applies(sys *System) (bool, string) {
	switch _, lb := lbTier(sys); {
	case sys.PSP == "":
		return false, "the target does not use a fakepsp the harness started, which must show the owner's charge"
	case !lb:
		return false, "no load balancer with an admin endpoint to pin the owner and route the retry to another server"
	case len(f.apis(sys)) < 2:
		return false, "fewer than two API servers the harness can kill or freeze: the retry needs another instance"
	}
	return true, ""
}

func (f OwnerAtCharge) Inject(ctx context.Context, sys *System, s Scope) (Injection, error) {
	if s.Amount == 0 {
		return nil, fmt.Errorf("%s: the intent has no amount to find its charge by", f.Name())
	}
	apis := f.apis(sys)
	lb, _ := lbTier(sys)
	b := pick(s, len(apis))
	owner, other := apis[b], (b+1)%len(apis)
	lockWindow()
	unlock := sync.OnceFunc(lbWindow.Unlock)
	fail := func(err error, undo ...func() error) (Injection, error) {
		errs := []error{err}
		for _, u := range undo {
			// A webhook that does not come back is a broken system
			// (restartFailed), and the caller must hear it.
			errs = append(errs, u())
		}
		_ = lbCall(lb, "PUT", "/route?pin=rr")
		unlock()
		return nil, fmt.Errorf("%s: %w", f.Name(), errors.Join(errs...))
	}
	fz, err := freeze(sys, "resolver")
	if err != nil {
		return fail(err)
	}
	hooks, err := killWebhooks(sys)
	rest := func() error { _ = fz.thaw(); return restartAll(ctx, hooks) }
	if err != nil {
		return fail(err, rest)
	}
	if err := lbCall(lb, "PUT", fmt.Sprintf("/route?pin=%d", b)); err != nil {
		return fail(err, rest)
	}
	held, err := PSPHoldReply.Arm(ctx, sys.PSP, Scope{Amount: s.Amount, Times: 1})
	if err != nil {
		return fail(err, rest)
	}
	// The strike: as soon as fakepsp has executed the charge, the owner dies
	// inside its PSP call and the LB sends everything else elsewhere.
	var struck atomic.Bool
	var strikeErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if strikeErr = held.WaitFired(wctx, 1); strikeErr != nil {
			return
		}
		if f.Freeze {
			strikeErr = owner.Proc.Pause()
		} else {
			strikeErr = owner.Proc.Kill()
		}
		if strikeErr == nil {
			struck.Store(true)
		}
		if err := lbCall(lb, "PUT", fmt.Sprintf("/route?pin=%d", other)); err != nil && strikeErr == nil {
			strikeErr = err
		}
	}()
	inj := &windowInjection{}
	inj.fired = func() int64 {
		n, _ := held.fired(context.Background())
		// The owner's death is the OS's word (its exit), not the owner's;
		// a freeze is the harness's own SIGSTOP that the OS accepted.
		if n > 0 && struck.Load() && (f.Freeze || owner.Proc.Exited()) && deadAll(hooks) {
			return 1
		}
		return 0
	}
	inj.story = func() string {
		verb := "killed"
		if f.Freeze {
			verb = "frozen (it wakes after the takeover)"
		}
		return fmt.Sprintf("%s: %s %s inside its PSP call once fakepsp executed the charge of %d (reply held); webhook down, %s frozen until %s after, retries routed to api server %d",
			f.Name(), owner.Name, verb, s.Amount, fz.names(), f.Tail, other+1)
	}
	inj.undo = func() error {
		<-done
		// Fired is read before the webhooks come back: deadAll holds now.
		wasFired := inj.fired()
		inj.fired = func() int64 { return wasFired }
		errs := []error{held.Undo(), restartAll(ctx, hooks), strikeErr}
		if !f.Freeze && struck.Load() {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			if err := owner.Proc.Restart(rctx); err != nil {
				errs = append(errs, restartFailed(owner.Name, err))
			}
			cancel()
		}
		later(f.Tail, func() {
			_ = fz.thaw()
			if f.Freeze && struck.Load() {
				_ = owner.Proc.Resume()
			}
			_ = lbCall(lb, "PUT", "/route?pin=rr")
			thawedAt = time.Now()
			unlock()
		})
		return errors.Join(errs...)
	}
	return inj, nil
}
