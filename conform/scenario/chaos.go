package scenario

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/fakepsp"
)

// ChaosFault is one kind of fault the randomized mode may put on an intent.
type ChaosFault string

// Chaos fault kinds; which are available depends on what idemcheck controls.
const (
	FaultNone        ChaosFault = "none"
	FaultPSPLose     ChaosFault = "psp-reply-lost"
	FaultPSP500      ChaosFault = "psp-500-after-charge"
	FaultPSPSlow     ChaosFault = "psp-slow"
	FaultClientLose  ChaosFault = "client-reply-lost"
	FaultKillRestart ChaosFault = "kill-restart-owner"
	FaultDepLose     ChaosFault = "dependency-reply-lost"
)

// Caps says which faults a run can inject.
type Caps struct {
	PSP   bool
	Procs bool
	Proxy bool
	Deps  bool
}

// Planned is one intent of the chaos schedule.
type Planned struct {
	N      int
	Caller int
	Fault  ChaosFault
	Copies int
	// Delay before the intent's first send, to mix timings deterministically.
	Delay time.Duration
}

func (p Planned) String() string {
	return fmt.Sprintf("intent %03d caller %d fault %-20s copies %d delay %s", p.N, p.Caller, p.Fault, p.Copies, p.Delay)
}

// Schedule is the chaos plan: a pure function of seed, capabilities, callers
// and length, so the same seed replays the same faults on the same intents.
func Schedule(seed uint64, caps Caps, callers, n int) []Planned {
	kinds := []ChaosFault{FaultNone, FaultNone}
	if caps.PSP {
		kinds = append(kinds, FaultPSPLose, FaultPSP500, FaultPSPSlow)
	}
	if caps.Proxy {
		kinds = append(kinds, FaultClientLose)
	}
	if caps.Procs {
		kinds = append(kinds, FaultKillRestart)
	}
	if caps.Deps {
		kinds = append(kinds, FaultDepLose)
	}
	out := make([]Planned, n)
	for i := range out {
		r := rand.New(rand.NewPCG(seed, uint64(i)+1))
		copies := 1
		if r.IntN(3) == 0 {
			copies = 2 + r.IntN(3)
		}
		out[i] = Planned{N: i + 1, Caller: r.IntN(max(callers, 1)), Fault: kinds[r.IntN(len(kinds))], Copies: copies,
			Delay: time.Duration(r.IntN(200)) * time.Millisecond}
	}
	return out
}

// ChaosCheck mixes seeded faults with concurrent traffic for about d and
// checks the whole history with the checker. onSchedule receives the plan.
func ChaosCheck(d time.Duration, onSchedule func([]string)) *Check {
	if d <= 0 {
		d = 10 * time.Second
	}
	return &Check{ID: "chaos", Title: fmt.Sprintf("randomized faults with concurrent traffic (%s)", d), Level: Safety,
		Rule: "HISTORY.md (whole history, checker)", Run: func(ctx context.Context, e *Env, t *T) { runChaos(ctx, e, t, d, onSchedule) }}
}

func chaosCaps(e *Env) Caps {
	u, err := url.Parse(e.D.Bases()[0])
	return Caps{PSP: e.PSP != nil, Procs: len(e.Procs) > 0, Proxy: err == nil && u.Scheme == "http", Deps: len(e.Links) > 0}
}

func runChaos(ctx context.Context, e *Env, t *T, d time.Duration, onSchedule func([]string)) {
	n := max(8, int(d/(250*time.Millisecond)))
	plan := Schedule(e.Seed, chaosCaps(e), len(e.Cfg.Callers), n)
	lines := make([]string, len(plan))
	for i, p := range plan {
		lines[i] = p.String()
	}
	if onSchedule != nil {
		onSchedule(lines)
	}
	e.Logf("chaos schedule (seed %d, %d intents):", e.Seed, len(plan))
	for _, l := range lines {
		e.Logf("  %s", l)
	}
	intents := make([]Intent, len(plan))
	for i, p := range plan {
		intents[i] = e.NewIntent(p.Caller)
	}
	var next atomic.Int64
	var planned, fired atomic.Int64
	var killMu sync.Mutex
	var wg sync.WaitGroup
	hard := time.Now().Add(3*d + 30*time.Second)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(plan) || ctx.Err() != nil || time.Now().After(hard) {
					return
				}
				if plan[i].Fault != FaultNone {
					planned.Add(1)
				}
				if chaosIntent(ctx, e, t, plan[i], intents[i], &killMu) {
					fired.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	t.Judge(ctx, nil, intents...)
	// A run whose faults never fired proves nothing.
	if planned.Load() > 0 && fired.Load() == 0 {
		t.Errorf("none of the %d planned faults fired: is the target using the fakepsp idemcheck started?", planned.Load())
	}
	t.Passf("%d intents, %d of %d planned faults fired; the checker decided %d partitions with no violation", len(plan), fired.Load(), planned.Load(), t.partitions())
}

// chaosIntent runs one planned intent and reports whether its fault fired.
func chaosIntent(ctx context.Context, e *Env, t *T, p Planned, in Intent, killMu *sync.Mutex) bool {
	time.Sleep(p.Delay)
	m := fakepsp.Match{Amount: in.Meaning.Amount, Times: 1}
	var via string
	start := checker.Now()
	var undo []func()
	var didFire func() bool
	var psp *fakepsp.Fault
	switch p.Fault {
	case FaultPSPLose:
		psp = e.PSP.Faults().LoseReplyAfterCharge(m)
	case FaultPSP500:
		psp = e.PSP.Faults().Error500AfterCharge(m)
	case FaultPSPSlow:
		psp = e.PSP.Faults().DelayBeforeCharge(m, 400*time.Millisecond)
	case FaultClientLose:
		if tp, err := e.Proxy(); err == nil {
			u, _ := url.Parse(e.D.Bases()[0])
			if l, err := tp.Link(fmt.Sprintf("chaos-%d-%d", e.Seed%1000, p.N), u.Host); err == nil {
				if un, err := l.LoseReply(); err == nil {
					via = "http://" + l.Addr()
					undo = append(undo, func() { _ = un(); _, _ = l.Disable() })
					didFire = func() bool { return l.Fired() > 0 }
				}
			}
		}
	case FaultDepLose:
		// A toxic on a dependency link touches every intent crossing it
		// meanwhile: that is part of the chaos.
		dl := e.Links[p.N%len(e.Links)]
		before := dl.Link.Fired()
		if un, err := dl.Link.LoseReply(); err == nil {
			undo = append(undo, func() { _ = un() })
			didFire = func() bool { return dl.Link.Fired() > before }
		}
	case FaultKillRestart:
		killed := make(chan bool, 1)
		didFire = func() bool { return <-killed } // waits for the kill to finish
		go func() {
			time.Sleep(60 * time.Millisecond)
			killMu.Lock()
			defer killMu.Unlock()
			ks := checker.Now()
			err := e.Procs[0].Kill()
			defer func() { killed <- err == nil }()
			_ = e.Procs[0].Restart()
			_ = e.WaitReady(ctx, 0)
			e.NoteFault(fmt.Sprintf("kill-restart (intent %d)", p.N), ks, checker.Now())
		}()
	}
	if psp != nil {
		undo = append(undo, psp.Remove)
		didFire = func() bool { return psp.Fired() > 0 }
	}
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
			})
		}()
	}
	wg.Wait()
	for _, u := range undo {
		u()
	}
	if p.Fault != FaultNone {
		e.NoteFault(fmt.Sprintf("%s (intent %d)", p.Fault, p.N), start, checker.Now())
	}
	final := false
	for _, a := range first {
		final = final || Final(a)
	}
	if !final {
		t.RetryUntilFinal(ctx, fmt.Sprintf("intent %d retry", p.N), in, 20, 200*time.Millisecond, nil)
	}
	return didFire != nil && didFire()
}
