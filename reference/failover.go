package reference

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/refstack"
	"github.com/idemcheck/idemcheck/stack/region"
	"github.com/idemcheck/idemcheck/targets/resolver"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

// failover is region-failover on the reference (SCENARIOS.md G2): R1 fails
// mid-replication with a charge in flight, and R2, the Region lag behind,
// takes over and resumes what R1 left unknown. It arms the PSP to hold the
// reply to the intent's charge and returns; the take-over runs beside the
// intent's requests, and Undo waits for it.
func (rg *regions) failover(ctx context.Context, s faults.Scope) (faults.Injection, error) {
	if !rg.begun.CompareAndSwap(false, true) {
		return &failed{done: closedErr(errors.New("R2 took over already: a Region fails over once"))}, nil
	}
	// R1's webhook goes first: the PSP's event for the held charge would
	// settle it in R1 before the cut, and R2 would have nothing to resume.
	// Its deliveries wait for R2's webhook (the story's late webhook).
	if t := tierNamed(rg.r1, "webhook"); t != nil {
		if err := t.Proc.Kill(); err != nil {
			return nil, fmt.Errorf("kill R1's webhook: %w", err)
		}
	}
	hold, err := faults.PSPHoldReply.Arm(ctx, rg.psp, faults.Scope{Amount: s.Amount, Times: 1})
	if err != nil {
		return nil, fmt.Errorf("hold the intent's PSP reply: %w", err)
	}
	f := &failed{done: make(chan error, 1), began: time.Now()}
	go func() { f.done <- rg.takeOver(context.WithoutCancel(ctx), hold, f) }()
	return f, nil
}

// brokenOnceKilled is the take-over's error as the run must read it: once R1
// was down, a failure leaves no Region serving, which is the harness's doing.
func brokenOnceKilled(killed bool, err error) error {
	if err == nil || !killed {
		return err
	}
	return fmt.Errorf("%w: R1 was down when the take-over failed: %w", faults.ErrSystemBroken, err)
}

// failed is one failover in progress.
type failed struct {
	done     chan error
	once     sync.Once
	err      error
	tookPSP  bool  // the PSP charged the intent and held its reply
	inFlight int64 // payments R2 held pending or unknown at the cut
	over     bool  // R2 serves
	// noLeftover, when set, says why R1 left no copy of an in-flight
	// payment's event in the log: R2's inbox then had nothing of R1's to
	// drop, and the failover proved nothing about it (G2).
	noLeftover string
	began      time.Time
	story      string
}

func closedErr(err error) chan error {
	c := make(chan error, 1)
	c <- err
	return c
}

func (f *failed) wait() error {
	f.once.Do(func() {
		select {
		case f.err = <-f.done:
		case <-time.After(2 * time.Minute):
			f.err = errors.New("the take-over did not finish within 2 minutes")
		}
	})
	return f.err
}

// Fired is 1 once R2 serves, had a charge of R1's to resume, and R1's relay
// published its leftover copy of an in-flight payment's event (read from
// the Kafka log): a failover that left R2 nothing in flight proves nothing
// about resuming, and one without R1's copy nothing about R2's inbox (G2).
func (f *failed) Fired() int64 {
	if f.wait() == nil && f.over && f.tookPSP && f.inFlight > 0 && f.noLeftover == "" {
		return 1
	}
	return 0
}

// Undo waits for R2 to serve. A failover that ran but left no copy of R1's
// returns why, so the run's inconclusive verdict names the reason.
func (f *failed) Undo() error {
	if err := f.wait(); err != nil {
		return err
	}
	if f.noLeftover != "" {
		return errors.New(f.noLeftover)
	}
	return nil
}

// takeOver is the failover's sequence, each step for a reason:
//  1. wait for the PSP to charge the intent and hold its reply: a charge R1
//     made and never recorded;
//  2. hold R1's resolver and the router (clients wait instead of failing),
//     kill R1's LB, API servers and worker: no claim or credit is made in R1
//     from here on;
//  3. let the replication bring R2 every claim and credit R1 made, then cut
//     it: what R1 writes from now on is lost with it;
//  4. release R1's resolver: it settles the held payment by replaying the
//     PSP, and R1's relay publishes the event, which R2 never sees;
//  5. kill the rest of R1, promote R2's Postgres and Valkey, start R2's
//     resolver, relay and worker, and move R1's callers to R2.
//
// R2 then holds the payment unknown and resumes it: with the derived PSP key
// and event id the PSP replays and the inbox drops the second copy; the
// Region mutants charge or credit twice.
//
// An error once R1's first tier is killed leaves the stack with no Region
// serving: it is wrapped in faults.ErrSystemBroken, so the run is errored
// instead of judging the requests that met the dead Region.
func (rg *regions) takeOver(ctx context.Context, hold *faults.PSPInjection, f *failed) (err error) {
	killed := false
	defer func() { err = brokenOnceKilled(killed, err) }()
	logf := func(format string, args ...any) {
		fmt.Fprintf(rg.log, "idemcheck run: failover: "+format+"\n", args...)
	}
	wctx, cancel := context.WithTimeout(ctx, storytime.D(10))
	f.tookPSP = hold.WaitFired(wctx, 1) == nil
	cancel()
	if !f.tookPSP {
		logf("the intent's charge never reached the PSP within 10 story s; failing over without it")
	}
	sweep := faults.FailpointAt(rg.r1.Resolver.Admin, resolver.SweepPoint)
	if err := sweep.Arm("error"); err != nil {
		return fmt.Errorf("hold R1's resolver: %w", err)
	}
	if err := rg.router.Proc.Pause(); err != nil {
		return fmt.Errorf("pause the router: %w", err)
	}
	resumed := false
	defer func() {
		if !resumed {
			_ = rg.router.Proc.Resume()
		}
	}()
	for _, name := range []string{"lb", "api-1", "api-2", "worker"} {
		killed = true
		if err := killTier(rg.r1, name); err != nil {
			return err
		}
	}
	if err := rg.awaitCaughtUp(ctx, 30*time.Second); err != nil {
		return err
	}
	for _, l := range []*faults.Link{rg.pg, rg.vk} {
		if _, err := l.Cut(); err != nil {
			return fmt.Errorf("cut the replication: %w", err)
		}
	}
	var inFlight []string
	rows, err := rg.r2.Ledger.Pool.Query(ctx, `SELECT payment_id FROM payments WHERE state IN ('PENDING', 'UNKNOWN')`)
	if err == nil {
		inFlight, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil {
		return fmt.Errorf("R2's payments in flight: %w", err)
	}
	f.inFlight = int64(len(inFlight))
	logf("replication cut: R2 holds every claim and credit of R1, %d payments in flight (the PSP charged the intent and held its reply: %v)",
		f.inFlight, f.tookPSP)
	if err := hold.Undo(); err != nil {
		return err
	}
	if err := sweep.Undo(); err != nil {
		return fmt.Errorf("release R1's resolver: %w", err)
	}
	settleErr := rg.awaitSettled(ctx, storytime.D(30))
	if settleErr != nil {
		logf("%v (going on: R2 resumes what R1 left)", settleErr)
	}
	// R1's leftover copy, read from the log, not inferred from R1's empty
	// outbox. Any event of a payment in flight at the cut is R1's: R2 had
	// caught up with R1 before the cut, so no such event existed then, and
	// R2's relay starts only after this.
	left, lerr := rg.leftoverPublished(ctx, inFlight)
	if len(left) == 0 {
		f.noLeftover = fmt.Sprintf("R1's relay published no event of the %d payment(s) R2 held in flight at the cut %v",
			len(inFlight), inFlight)
		if err := errors.Join(settleErr, lerr); err != nil {
			f.noLeftover += ": " + err.Error()
		}
		logf("%s: R2's inbox gets no copy of R1's to drop; the failover does not count as fired", f.noLeftover)
	} else {
		logf("R1 left its copy of %v in the payments log", left)
	}
	for _, t := range rg.r1.Tiers() {
		if !t.Proc.Exited() {
			if err := killTier(rg.r1, t.Name); err != nil {
				return err
			}
		}
	}
	if err := rg.follow.Promote(ctx); err != nil {
		return err
	}
	rg.promoted = true
	if err := region.PromoteValkey(ctx, rg.svc2.Valkey.Endpoint()); err != nil {
		return err
	}
	if err := rg.r2.StartResolver(ctx); err != nil {
		return fmt.Errorf("R2's resolver: %w", err)
	}
	if err := rg.delivery(ctx, rg.r2); err != nil {
		return fmt.Errorf("R2's relay and worker: %w", err)
	}
	if err := rg.webhook(rg.r2); err != nil {
		return err
	}
	rg.active.Store(rg.r2)
	resumed = true
	if err := rg.router.Proc.Resume(); err != nil {
		return fmt.Errorf("resume the router: %w", err)
	}
	if err := rg.routerCall(ctx, "/failover?from=R1&to=R2"); err != nil {
		return err
	}
	f.over = true
	f.story = fmt.Sprintf("region-failover: R1 failed with %d payments in flight, the intent's charge among them; R2 took over in %s",
		f.inFlight, time.Since(f.began).Round(time.Millisecond))
	logf("R2 serves R1's callers (%s after the failover began)", time.Since(f.began).Round(time.Millisecond))
	return nil
}

// Story says what the failover did, for the chaos check's report.
func (f *failed) Story() string {
	if f.wait() != nil {
		return ""
	}
	return f.story
}

// awaitCaughtUp waits until R2 holds what R1 holds, twice in a row.
func (rg *regions) awaitCaughtUp(ctx context.Context, within time.Duration) error {
	end, same := time.Now().Add(within), 0
	for {
		ok, state, err := rg.caughtUp(ctx)
		if ok && err == nil {
			if same++; same >= 2 {
				return nil
			}
		} else {
			same = 0
		}
		if time.Now().After(end) {
			return fmt.Errorf("R2 did not catch up with R1 within %s: %s (%v)", within, state, err)
		}
		time.Sleep(storytime.D(0.5))
	}
}

// awaitSettled waits until R1 has no payment in flight and its relay has
// published every event.
func (rg *regions) awaitSettled(ctx context.Context, within time.Duration) error {
	end := time.Now().Add(within)
	for {
		var open, outbox int64
		err := rg.r1.Ledger.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM payments WHERE state IN ('PENDING', 'UNKNOWN')),
 (SELECT count(*) FROM outbox)`).Scan(&open, &outbox)
		if err == nil && open == 0 && outbox == 0 {
			return nil
		}
		if time.Now().After(end) {
			return fmt.Errorf("R1 still had %d payments in flight and %d outbox rows after %s (%v)", open, outbox, within, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func tierNamed(st *refstack.Stack, name string) *refstack.Tier {
	for _, t := range st.Tiers() {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func killTier(st *refstack.Stack, name string) error {
	t := tierNamed(st, name)
	if t == nil || t.Proc.Exited() {
		return nil
	}
	if err := t.Proc.Kill(); err != nil {
		return fmt.Errorf("kill R1's %s: %w", name, err)
	}
	_ = t.Proc.Wait(10 * time.Second)
	return nil
}
