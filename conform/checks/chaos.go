package checks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/faults"
)

// NoFault is the schedule's name for an intent sent without a fault.
const NoFault = "none"

// ChaosCheck mixes seeded faults with concurrent traffic for about d and
// checks the whole history with the checker. onSchedule receives the plan.
func ChaosCheck(d time.Duration, onSchedule func([]string)) *scenario.Check {
	return ChaosCheckPlan(d, onSchedule, ChaosPlan{})
}

// ChaosCheckPlan is ChaosCheck with a given schedule (a shrunk one
// replayed) or a hook that receives the schedule used.
func ChaosCheckPlan(d time.Duration, onSchedule func([]string), cp ChaosPlan) *scenario.Check {
	if d <= 0 {
		d = 10 * time.Second
	}
	return &scenario.Check{ID: "chaos", Title: fmt.Sprintf("randomized faults with concurrent traffic (%s)", d), Level: scenario.Safety,
		Rule: "HISTORY.md (whole history, checker)", Run: func(ctx context.Context, e *scenario.Env, t *scenario.T) {
			runChaosRounds(ctx, e, t, d, onSchedule, cp)
		}}
}

// tally counts, per fault, how often it was planned and how often it fired.
type tally struct {
	mu      sync.Mutex
	planned map[string]int
	fired   map[string]int
	failed  map[string]string // a fault that could not be injected: why
	ok      atomic.Int64      // intents that ended succeeded
	ran     atomic.Int64      // intents run before the time bound
	judged  time.Duration     // settling and judging, after the traffic
}

func (tl *tally) note(name string, fired bool, err error) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.planned[name]++
	if fired {
		tl.fired[name]++
	}
	if err != nil && tl.failed[name] == "" {
		tl.failed[name] = err.Error()
	}
}

// runChaos runs one window of chaos and returns its tally (nil when it
// could not start).
func runChaos(ctx context.Context, e *scenario.Env, t *scenario.T, d time.Duration, onSchedule func([]string), cp ChaosPlan) *tally {
	if e.Hooks != nil {
		if err := e.Hooks.Registered(); err != nil {
			t.Errorf("register the webhook endpoint with fakepsp: %v", err)
			return nil
		}
	}
	sys := e.System()
	apply, not := faults.Applicable(sys)
	var names []string
	var once []faults.Fault
	for _, f := range apply {
		if len(e.ChaosFaults) == 0 || slices.Contains(e.ChaosFaults, f.Name()) {
			if _, ok := f.(faults.Once); ok {
				once = append(once, f)
				continue
			}
			names = append(names, f.Name())
		}
	}
	for _, n := range e.ChaosFaults {
		if faults.Lookup(n) == nil {
			t.Errorf("chaos fault %q is not in the catalogue (have %s)", n, strings.Join(faults.Names(faults.All()), ", "))
			return nil
		}
		if why, ok := not[n]; ok {
			t.NotApplicable("chaos fault %s does not apply: %s", n, why)
			return nil
		}
	}
	n := max(8, int(d/(250*time.Millisecond)))
	shapes, off := chaosShapes(e)
	plan := PlaceOnce(Schedule(e.Seed, names, len(e.Cfg.Callers), n, shapes...), e.Seed, once)
	if cp.Given != nil {
		applicable := slices.Clone(names)
		for _, f := range once {
			applicable = append(applicable, f.Name())
		}
		if err := checkGiven(cp.Given, applicable, shapes, len(e.Cfg.Callers)); err != nil {
			if cp.Refused != nil {
				cp.Refused(err)
			}
			t.Errorf("%v", err)
			return nil
		}
		plan = cp.Given
	}
	if cp.Used != nil {
		cp.Used(slices.Clone(plan))
	}
	drawn := strings.Join(names, ", ")
	for _, f := range once {
		drawn += fmt.Sprintf("; %s once", f.Name())
	}
	lines := []string{fmt.Sprintf("seed %d, %d intents; faults drawn from: %s; shapes drawn from: %s", e.Seed, len(plan), drawn, strings.Join(shapes, ", "))}
	lines = append(lines, shapesNotDrawn(e, off)...)
	for _, p := range plan {
		lines = append(lines, p.String())
	}
	if onSchedule != nil {
		onSchedule(lines)
	}
	e.Logf("chaos schedule:")
	for _, l := range lines {
		e.Logf("  %s", l)
	}
	for _, name := range faults.Names(faults.All()) {
		if why, ok := not[name]; ok {
			e.Logf("  not applicable: %s (%s)", name, why)
		}
	}
	intents := make([]scenario.Intent, len(plan))
	for i, p := range plan {
		intents[i] = e.NewIntent(p.Caller)
		if p.KeyOf > 0 {
			intents[i].Key = intents[p.KeyOf-1].Key
		}
	}
	sr := newShapeRun(e, plan)
	tl := &tally{planned: map[string]int{}, fired: map[string]int{}, failed: map[string]string{}}
	var next atomic.Int64
	// A process or failpoint fault runs alone among the faults: two kills of
	// one tier would race over its restart, and a kill would swallow another
	// intent's fault before it fires, leaving the run inconclusive. Intents
	// without a fault keep flowing meanwhile.
	var procMu sync.RWMutex
	var wg sync.WaitGroup
	hard := time.Now().Add(3*d + 30*time.Second)
	// The service's consumer gets its own stream of records and faults
	// (q_chaos.go), sharing procMu with the process faults.
	waitQueue := startQueueChaos(ctx, e, t, d, &procMu)
	// Latency bursts on the dependency links, from their own stream of the
	// seed (chaos_latency.go): the intents' schedule is the same with or
	// without them.
	waitBursts := StartBursts(ctx, e, t, d)
	for w := 0; w < chaosWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(plan) || ctx.Err() != nil || time.Now().After(hard) {
					return
				}
				tl.ran.Add(1)
				chaosIntent(ctx, e, t, sys, plan[i], intents[i], &procMu, tl, sr)
			}
		}()
	}
	wg.Wait()
	bursts := waitBursts()
	judging := time.Now()
	// The changed-meaning retries go last: the judge takes an order's first
	// intent's amount as the order's and the others as its mismatches.
	t.Judge(ctx, nil, append(intents, sr.changedIntents()...)...)
	sr.judgeRefunds(ctx, e, t)
	judgeChaosCredits(ctx, e, t, intents)
	if waitQueue != nil {
		// After the API's judge: the consumer's credits it records are
		// judged by the queue's own rule (judgeQueue), as the W checks' are.
		waitQueue()
	}
	credits, notes, sink := judgeBehind(ctx, e, t)
	tl.judged = time.Since(judging)
	sr.verdict(t, off)
	allowed := slices.Clone(names)
	for _, f := range once {
		allowed = append(allowed, f.Name())
	}
	t.Coverage = chaosCoverage(e, allowed, not, tl, shapes, off, sr.tally, bursts)
	for _, l := range t.Coverage.Lines() {
		t.Counted("%s", l)
	}
	chaosVerdict(t, tl, len(plan))
	if e.Behind != nil {
		t.Counted("%d credits, %d notifications, %d sink rows behind the API", credits, notes, sink)
	}
	return tl
}

// chaosVerdict makes the run honest: a fault the schedule drew that never
// fired, or a run where no intent succeeded, proves nothing.
func chaosVerdict(t *scenario.T, tl *tally, intents int) {
	var planned, fired int
	var missed []string
	for name, n := range tl.planned {
		if name == NoFault {
			continue
		}
		planned += n
		fired += tl.fired[name]
		if tl.fired[name] == 0 {
			why := ""
			if tl.failed[name] != "" {
				why = ": " + tl.failed[name]
			}
			missed = append(missed, fmt.Sprintf("%s (planned %d times)%s", name, n, why))
		}
	}
	sort.Strings(missed)
	if len(missed) > 0 {
		t.Inconclusive("every fault the schedule drew fired", "these never did: %s", strings.Join(missed, "; "))
	}
	if tl.ok.Load() == 0 {
		t.Inconclusive("some intent succeeded", "none of the %d intents ended succeeded: is the target serving?", intents)
	}
	ran := fmt.Sprint(intents)
	if n := tl.ran.Load(); n < int64(intents) {
		ran = fmt.Sprintf("%d of the %d planned (the rest past the time bound)", n, intents)
	}
	t.Passf("%s intents (%d succeeded), %d faults injected and %d fired, every drawn fault at least once; the checker decided %d partitions with no violation",
		ran, tl.ok.Load(), planned, fired, t.Partitions())
}

// chaosIntent runs one planned intent under its fault.
func chaosIntent(ctx context.Context, e *scenario.Env, t *scenario.T, sys *faults.System, p Planned, in scenario.Intent, procMu *sync.RWMutex, tl *tally, sr *shapeRun) {
	time.Sleep(p.Delay)
	f := faults.Lookup(p.Fault)
	scope := faults.Scope{N: p.N, Amount: in.Meaning.Amount, Times: 1}
	start := history.Now()
	var inj faults.Injection
	var injErr error
	// A process fault strikes while the intent's requests are in flight; the
	// others are in place before the first send. A window fault pins the
	// LB, takes the webhook tier down and freezes the resolver: it runs
	// alone among the faults, as a process fault does.
	during := make(chan struct{})
	harnessOff, linkOff := func() {}, func() {}
	exclusive := f != nil && (f.Family() == faults.FamilyProcess || f.Family() == faults.FamilyFailpoint || f.Family() == faults.FamilyRegion ||
		f.Family() == faults.FamilyWindow)
	switch {
	case f == nil:
		close(during)
	case exclusive:
		procMu.Lock()
		// The service is away from every client until the undo returns:
		// their converge windows start then (scenario.Env.HarnessFault).
		harnessOff = e.HarnessFault()
		defer harnessOff()
		go func() {
			defer close(during)
			if f.Family() == faults.FamilyProcess {
				time.Sleep(60 * time.Millisecond)
			}
			inj, injErr = f.Inject(ctx, sys, scope)
		}()
		if f.Family() != faults.FamilyProcess {
			<-during // armed (a failover: under way) before the first send
		}
	default:
		procMu.RLock()
		if f.Family() == faults.FamilyNetwork {
			// The latency bursts leave the links to it (scenario's linkGate).
			linkOff = e.LinkFaultOn()
			defer linkOff()
		}
		inj, injErr = f.Inject(ctx, sys, scope)
		close(during)
	}
	via := ""
	if r, ok := inj.(faults.Router); ok && injErr == nil {
		via = r.Via()
	}
	hold := sr.holdOwner(ctx, e, p, in)
	resolved := resolveFirst(ctx, e, p, in)
	waitResolve := resolveRace(ctx, e, p, in)
	first := make([]*driver.Attempt, p.Copies)
	var wg sync.WaitGroup
	for c := 0; c < p.Copies; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			first[c] = t.Send(ctx, fmt.Sprintf("intent %d copy %d (%s)", p.N, c+1, p.Fault), in, func(s *driver.Send) {
				s.Via = via
				if via == "" {
					s.Instance = c
				}
				if p.Shape == ShapeLateRetry {
					// The copies outlive the late retry, so it meets them in flight.
					s.Timeout = 4 * e.Cfg.TimeoutD()
				}
			})
		}()
	}
	late := sr.lateRetry(ctx, t, p, in, via, hold)
	wg.Wait()
	if waitResolve != nil {
		resolved = waitResolve()
	}
	if late != nil {
		first = append(first, late)
	}
	<-during
	fired := false
	if pi, ok := inj.(*faults.PSPInjection); ok && pi.Err() == nil && pi.Fired() == 0 {
		// A service carries on after its client gave up on an attempt, and
		// a latency burst on its own servers' links can hold its way to
		// the PSP past the client's timeout: the fault is still due when
		// that call gets there. Undoing it first would leave a fault that
		// was about to fire unfired, and the run inconclusive.
		wctx, cancel := context.WithTimeout(ctx, e.Cfg.TimeoutD())
		_ = pi.WaitFired(wctx, 1)
		cancel()
	}
	if inj != nil && injErr == nil && f.Family() == faults.FamilyNetwork && inj.Fired() == 0 {
		// A link fault on the webhook link fires when the intent's event is
		// delivered, which the PSP does after its answer and may hold back
		// (its delivery freedoms): one event a payment (Adyen's) may cross
		// after the intent's requests are done. Undoing it first would leave
		// it unfired and the run inconclusive; it gets a timeout to fire.
		waitFired(ctx, inj, e.Cfg.TimeoutD())
	}
	if inj != nil {
		uerr := inj.Undo()
		if exclusive {
			harnessOff()
		}
		linkOff()
		fired = inj.Fired() > 0
		if uerr != nil {
			injErr = uerr
		}
		if errors.Is(uerr, faults.ErrSystemBroken) {
			t.Broke("%s (intent %d): %v", p.Fault, p.N, uerr)
		}
		if st, ok := inj.(interface{ Story() string }); ok && fired && st.Story() != "" {
			t.Counted("%s (intent %d)", st.Story(), p.N)
		}
	}
	if inj == nil && errors.Is(injErr, faults.ErrSystemBroken) {
		// The injection failed half-way and could not put back what it
		// had done (a tier crashed at a point being armed stayed down).
		t.Broke("%s (intent %d): %v", p.Fault, p.N, injErr)
	}
	if f != nil {
		if exclusive {
			procMu.Unlock()
		} else {
			procMu.RUnlock()
		}
		tl.note(p.Fault, fired, injErr)
		e.NoteFault(fmt.Sprintf("%s (intent %d)", p.Fault, p.N), start, history.Now())
		if injErr != nil {
			e.Logf("chaos: intent %d: %s: %v", p.N, p.Fault, injErr)
		}
	}
	final := false
	for _, a := range first {
		final = final || scenario.Final(a)
	}
	atts := append([]*driver.Attempt(nil), first...)
	if pause := sr.pause(ctx, t, p, in); pause != nil {
		atts = append(atts, pause)
		final = final || scenario.Final(pause)
	}
	if !final {
		atts = append(atts, t.RetryUntilFinal(ctx, fmt.Sprintf("intent %d retry", p.N), in, 20, 200*time.Millisecond, nil)...)
	}
	for _, a := range atts {
		if a != nil && a.Outcome == history.OutcomeSucceeded {
			tl.ok.Add(1)
			break
		}
	}
	sr.followUp(ctx, e, t, p, in, atts, late, resolved)
}
