package faults

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The failpoint family: points in tier code, armed over each tier's admin
// API (PUT/DELETE /failpoints/<name>, GET /failpoints for the counters). The
// names are the tiers' own (targets/*); a test keeps them registered.
var failpointFaults = []Fault{
	CrashAt{Kind: "api", Point: "after-psp-call"},
	CrashAt{Kind: "api", Point: "before-complete"},
	CrashAt{Kind: "webhook", Point: "before-webhook-commit", Wait: asyncWait,
		Only: "the point is passed only when the webhook settles a payment the API and the resolver have not yet settled, a race an intent cannot arrange; kill-restart-webhook crashes it instead"},
	CrashAt{Kind: "resolver", Point: "resolver-sweep", Wait: asyncWait,
		Only: "the point is passed only when a payment awaits the resolver, which an intent cannot arrange; kill-restart-resolver crashes it instead"},
	CrashAt{Kind: "relay", Point: "after-publish-before-delete", Wait: asyncWait},
	CrashAt{Kind: "worker", Point: "after-commit-before-push", Wait: asyncWait},
	// E1: the phone has the push, the record still says PENDING; the
	// restarted worker resends it (one repeat alert, unavoidable), records
	// SENT, and crashes before its offset commit, so the event comes a
	// third time: only the record stops a second repeat.
	CrashAt{Kind: "worker", Point: "after-push-before-sent", Then: "before-offset-commit", Wait: asyncWait},
	CrashAt{Kind: "worker", Point: "before-offset-commit", Wait: asyncWait},
	CrashAt{Kind: "connector", Point: "connector-before-ack", Wait: asyncWait},
	CrashAt{Kind: "streamjob", Point: "streamjob-after-sink-write", Wait: asyncWait},
	CrashAt{Kind: "streamjob", Point: "streamjob-after-checkpoint-commit", Wait: asyncWait},
}

// asyncWait is how long Undo gives a point of a tier behind the API (which
// meets the intent's payment after the API answered) to fire before it
// disarms it.
const asyncWait = 3 * time.Second

// CrashExitCode is the exit status of a failpoint's crash action
// (targets/failpoint.CrashCode; a test there keeps the two the same).
const CrashExitCode = 86

// ExitCoder is a Proc that reports how its current incarnation ended.
type ExitCoder interface {
	// ExitCode is the exit status once the process has ended; exited is
	// false while it runs.
	ExitCode() (code int, exited bool)
}

// crashedAtPoint reports whether t's process ended with the crash action's
// own status: an exit for any other reason while the point was armed (a
// kill, a panic, a failed start) is not the point firing.
func crashedAtPoint(t Tier) bool {
	ec, ok := t.Proc.(ExitCoder)
	if !ok {
		return false
	}
	code, exited := ec.ExitCode()
	return exited && code == CrashExitCode
}

// CrashAt arms Point on every tier of Kind to crash the process the first
// time code passes it; Undo disarms it, and restarts every tier that died. It
// fired when a process exited with the crash action's status (CrashExitCode)
// while armed; any other death is reported by Undo and does not count.
type CrashAt struct {
	Kind  string
	Point string
	// Wait > 0: Undo first waits up to Wait for the crash.
	Wait time.Duration
	// Only, when set, says why the point cannot be made to fire by an
	// intent: such a fault is for specs that arrange its condition, and
	// does not apply to a chaos run.
	Only string
	// Then, when set, is a second point armed on the process the first
	// crash restarted: the crash there makes the redelivery of the first
	// crash's batch happen twice. The fault fired only when both crashed.
	Then string
}

func (f CrashAt) Name() string {
	n := "crash-" + f.Kind + "-" + strings.TrimPrefix(f.Point, f.Kind+"-")
	if f.Then != "" {
		n += "-then-" + strings.TrimPrefix(f.Then, f.Kind+"-")
	}
	return n
}
func (f CrashAt) Family() Family { return FamilyFailpoint }
func (f CrashAt) tiers(sys *System) []Tier {
	var out []Tier
	for _, t := range sys.TiersOf(f.Kind) {
		if t.AdminURL() != "" {
			out = append(out, t)
		}
	}
	return out
}

func (f CrashAt) Applies(sys *System) (bool, string) {
	if f.Only != "" {
		return false, f.Only
	}
	if len(f.tiers(sys)) == 0 {
		return false, fmt.Sprintf("no %s process with a failpoint admin endpoint", f.Kind)
	}
	return true, ""
}

func (f CrashAt) Inject(ctx context.Context, sys *System, _ Scope) (Injection, error) {
	ts := f.tiers(sys)
	if len(ts) == 0 {
		return nil, fmt.Errorf("%s: no %s process with an admin endpoint", f.Name(), f.Kind)
	}
	// Every tier of the kind is armed: the intent's request may reach any
	// of the API servers, and the first to pass the point is the one to die.
	for i, t := range ts {
		if err := pointCall(http.MethodPut, t.AdminURL(), f.Point, "1*crash"); err != nil {
			return nil, f.unarm(ctx, ts[:i+1], fmt.Errorf("%s on %s: %w", f.Name(), t.Name, err))
		}
	}
	var once sync.Once
	var crashed atomic.Int64
	var err error
	crashedNow := func() int64 {
		if f.Then != "" {
			return 0 // counted in undo, once the second crash came too
		}
		var n int64
		for _, t := range ts {
			if crashedAtPoint(t) {
				n++
			}
		}
		return n
	}
	undo := func() {
		waitExit(ts, f.Wait)
		var errs []error
		var restarted []Tier
		for _, t := range ts {
			hit, back, terr := f.settle(ctx, t, f.Point)
			if back {
				restarted = append(restarted, t)
			}
			if terr != nil {
				errs = append(errs, terr)
			}
			if !hit {
				continue
			}
			if f.Then != "" {
				// The restarted process is the one the redelivery reaches
				// (its partitions come back to it): armed now, the second
				// point meets the first redelivery's batch.
				if hit, terr = f.thenCrash(ctx, t); terr != nil {
					errs = append(errs, terr)
				}
			}
			if hit {
				crashed.Add(1)
			}
		}
		for _, t := range restarted {
			// After the Then crash too: its point is to meet the first
			// redelivery, which a settle before it would have finished.
			if serr := t.settled(ctx); serr != nil {
				errs = append(errs, fmt.Errorf("%s: %w", f.Name(), serr))
			}
		}
		err = errors.Join(errs...)
	}
	return &injection{
		fired: func() int64 { return max(crashed.Load(), crashedNow()) },
		undo:  func() error { once.Do(undo); return err },
	}, nil
}

// unarm settles the tiers armed before an arm failed, the failed one with
// them: traffic of other intents flows while the point is armed, so a tier
// may already have crashed there (a crash that ends the arming call shows
// as its EOF). Left alone, it would stay down for the rest of the run and
// every finding after it would be the harness's doing; a restart that fails
// says the system is broken (ErrSystemBroken).
func (f CrashAt) unarm(ctx context.Context, ts []Tier, armErr error) error {
	errs := []error{armErr}
	for _, t := range ts {
		if _, _, err := f.settle(ctx, t, f.Point); errors.Is(err, ErrSystemBroken) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// thenCrash arms Then on t's new incarnation and settles it.
func (f CrashAt) thenCrash(ctx context.Context, t Tier) (bool, error) {
	if err := pointCall(http.MethodPut, t.AdminURL(), f.Then, "1*crash"); err != nil {
		return false, fmt.Errorf("%s: arm %s on %s: %w", f.Name(), f.Then, t.Name, err)
	}
	waitExit([]Tier{t}, f.Wait)
	hit, _, err := f.settle(ctx, t, f.Then)
	return hit, err
}

// waitExit waits up to d for any of ts to exit.
func waitExit(ts []Tier, d time.Duration) {
	exited := func() bool {
		for _, t := range ts {
			if t.Proc.Exited() {
				return true
			}
		}
		return false
	}
	for end := time.Now().Add(d); !exited() && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
}

// settle disarms point on t and, if t died, restarts it; hit says it died
// of the point's own crash, and any other death is an error; restarted says
// a new incarnation runs.
func (f CrashAt) settle(ctx context.Context, t Tier, point string) (hit, restarted bool, err error) {
	derr := pointCall(http.MethodDelete, t.AdminURL(), point, "")
	// A crash between the last pass and the disarm shows as a refused
	// disarm: give the dying process a moment to be reaped.
	if derr != nil {
		for end := time.Now().Add(2 * time.Second); !t.Proc.Exited() && time.Now().Before(end); {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if !t.Proc.Exited() {
		if derr != nil {
			// Still armed on a live process: it crashes later, when no
			// undo is left to restart it.
			return false, false, fmt.Errorf("%w: %s: %s may still be armed on %s: %w", ErrSystemBroken, f.Name(), point, t.Name, derr)
		}
		return false, false, nil
	}
	var errs []error
	if hit = crashedAtPoint(t); !hit {
		code := -1
		if ec, ok := t.Proc.(ExitCoder); ok {
			code, _ = ec.ExitCode()
		}
		errs = append(errs, fmt.Errorf("%s: %s exited with status %d while %s was armed, not at the point's crash (%d)", f.Name(), t.Name, code, point, CrashExitCode))
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	rerr := t.Proc.Restart(rctx)
	if rerr != nil {
		errs = append(errs, fmt.Errorf("%s: %w", f.Name(), restartFailed(t.Name, rerr)))
	}
	return hit, rerr == nil, errors.Join(errs...)
}

// pointCall speaks the tiers' failpoint admin API (targets/failpoint's
// Handler): PUT arms a point with an action, DELETE disarms it.
func pointCall(method, admin, point, action string) error {
	url := strings.TrimRight(admin, "/") + "/failpoints/" + point
	req, err := http.NewRequest(method, url, strings.NewReader(action))
	if err != nil {
		return err
	}
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("failpoint %s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("failpoint %s %s: %s: %s", method, url, resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}
