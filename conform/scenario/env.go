package scenario

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/faults"
)

// Effects observes money movement. Charges is nil for a plain counter.
type Effects interface {
	Charges(ctx context.Context) ([]checker.Op, error)
	Count(ctx context.Context) (int64, error)
}

// Instance is one started copy of the target, when idemcheck owns it.
type Instance interface {
	Kill() error
	Pause() error
	Resume() error
	Restart() error
}

// Env is what checks run against.
type Env struct {
	Cfg     *config.Config
	D       *driver.Driver
	Effects Effects
	// PSP is set when idemcheck started fakepsp for the target.
	PSP *fakepsp.PSP
	// Procs are the started instances (empty when the target runs on its own).
	Procs []Instance
	// WaitReady polls instance i until it answers again after a restart.
	WaitReady func(ctx context.Context, i int) error
	// TP is the embedded Toxiproxy (started lazily by Proxy).
	TP *faults.Toxiproxy
	// Links front the target's own dependencies (config toxiproxy.links).
	Links []DepLink
	// MaxWait bounds how long a check may wait for a window or horizon.
	MaxWait time.Duration
	// Advance, when set, moves the target's clocks forward by an offset
	// instead of idemcheck sleeping through long windows.
	Advance func(offset time.Duration) error
	offset  time.Duration
	Seed    uint64
	Log     io.Writer

	mu      sync.Mutex
	counter atomic.Int64
	faults  []checker.FaultWindow
}

// Intent is one logical payment idemcheck makes up.
type Intent struct {
	Meaning driver.Meaning
	Key     string
	Caller  int
}

// NewIntent makes a payment whose amount no other intent of this run uses,
// so the PSP's charges can be attributed to intents by amount alone.
func (e *Env) NewIntent(caller int) Intent {
	n := e.counter.Add(1)
	return Intent{
		Meaning: driver.Meaning{OrderID: fmt.Sprintf("ord-%d-%d", e.Seed%100000, n), Amount: 1000 + n, Currency: "USD", PaymentMethod: "pm_card_visa"},
		Key:     fmt.Sprintf("idem-%x-%d", e.Seed%(1<<32), n),
		Caller:  caller,
	}
}

// NoteFault records a fault window for the reports' pictures.
func (e *Env) NoteFault(name string, start, end int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.faults = append(e.faults, checker.FaultWindow{Name: name, Start: start, End: end})
}

// FaultWindows lists the faults injected so far.
func (e *Env) FaultWindows() []checker.FaultWindow {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]checker.FaultWindow(nil), e.faults...)
}

// Logf writes a progress line.
func (e *Env) Logf(format string, args ...any) {
	if e.Log != nil {
		e.mu.Lock()
		fmt.Fprintf(e.Log, format+"\n", args...)
		e.mu.Unlock()
	}
}

// Settle waits until the effect count stays unchanged for the config's settle
// period (bounded), so a check judges effects after the target went quiet.
func (e *Env) Settle(ctx context.Context) {
	if e.Effects == nil {
		return
	}
	quiet := e.Cfg.SettleD()
	deadline := time.Now().Add(quiet*10 + 2*time.Second)
	last, _ := e.Effects.Count(ctx)
	since := time.Now()
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return
		case <-time.After(quiet / 5):
		}
		n, _ := e.Effects.Count(ctx)
		if n != last {
			last, since = n, time.Now()
			continue
		}
		if time.Since(since) >= quiet {
			return
		}
	}
}

// ChargesFor returns the PSP charges whose amount is the intent's. It returns
// ok=false when the effects are a plain counter.
func (e *Env) ChargesFor(ctx context.Context, amount int64) ([]checker.Op, bool) {
	if e.Effects == nil {
		return nil, false
	}
	all, err := e.Effects.Charges(ctx)
	if err != nil || all == nil {
		return nil, false
	}
	var out []checker.Op
	for _, c := range all {
		if c.Input.Amount != nil && *c.Input.Amount == amount {
			out = append(out, c)
		}
	}
	return out, true
}

// Count is the effect count, or -1 without effects.
func (e *Env) Count(ctx context.Context) int64 {
	if e.Effects == nil {
		return -1
	}
	n, err := e.Effects.Count(ctx)
	if err != nil {
		return -1
	}
	return n
}

// Proxy starts the embedded Toxiproxy on first use.
func (e *Env) Proxy() (*faults.Toxiproxy, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.TP != nil {
		return e.TP, nil
	}
	tp, err := faults.StartToxiproxy()
	if err != nil {
		return nil, err
	}
	e.TP = tp
	return tp, nil
}

// Rand is a generator derived from the run's seed and a name, so each check
// draws the same numbers whatever ran before it.
func (e *Env) Rand(name string) *rand.Rand {
	var h uint64 = 1469598103934665603
	for _, c := range []byte(name) {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return rand.New(rand.NewPCG(e.Seed, h))
}

// Wait lets d pass for the target: it advances the target's clocks when the
// harness can, and sleeps otherwise.
func (e *Env) Wait(ctx context.Context, d time.Duration) error {
	if e.Advance != nil {
		e.mu.Lock()
		e.offset += d
		off := e.offset
		e.mu.Unlock()
		if err := e.Advance(off); err != nil {
			return fmt.Errorf("advance the target's clocks by %s: %w", d, err)
		}
		e.D.SetClockOffset(off)
		return nil
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// CanWait reports whether d is within what the run may wait.
func (e *Env) CanWait(d time.Duration) bool { return e.Advance != nil || d <= e.MaxWait }

// DepLink is a Toxiproxy link the target reaches one of its dependencies through.
type DepLink struct {
	Name string
	Link *faults.Link
}
