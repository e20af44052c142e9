package scenario

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/pspfront"
	"github.com/idemcheck/idemcheck/faults"
)

// Effects observes money movement. Charges is nil for a plain counter.
type Effects interface {
	Charges(ctx context.Context) ([]history.Op, error)
	Count(ctx context.Context) (int64, error)
}

// Env is what checks run against.
type Env struct {
	// harness: when a fault of the harness has the service away from
	// every client (harness_window.go).
	harness harnessWindow
	// links keeps latency bursts and network faults apart (link_gate.go).
	links   linkGate
	Cfg     *config.Config
	D       *driver.Driver
	Effects Effects
	// PSP is the fakepsp the target charges through: the one idemcheck
	// started (then Local is it too) or one at effects.fakepsp_url.
	PSP PSP
	// Local is the fakepsp idemcheck started; nil for one it reaches by
	// URL. Webhook checks hold and redeliver events in it.
	Local LocalPSP
	// Front, with PSP, is the recording proxy the target reaches fakepsp through.
	Front *pspfront.Front
	// Ledger, when configured, reads the service's own charges of an order.
	Ledger LedgerReader
	// Hooks, when set, is the service's webhook handler; Credits reads its
	// merchant credits (ledger.credits).
	Hooks   *Hooks
	Credits CreditReader
	// Queue, when set, is the service's Kafka consumer (queue.go), judged
	// from the same Credits.
	Queue *Queue
	// Procs are the started instances (empty when the target runs on its
	// own): the fault catalogue's processes, which checks kill, pause and
	// restart too.
	Procs []faults.Proc
	// WaitReady polls instance i until it answers again after a restart.
	WaitReady func(ctx context.Context, i int) error
	// TP is the embedded Toxiproxy (started lazily by Proxy).
	TP *faults.Toxiproxy
	// Links front the target's own dependencies (config toxiproxy.links).
	Links []DepLink
	// BurstLinks front dependencies that only chaos's latency bursts act
	// on: the reference's tiers' Postgres, Valkey and Kafka. Its network
	// faults stay aimed at Links, where a lost reply makes a repeat, so
	// the kill matrix's schedules keep their meaning; a burst only
	// stretches a read-then-write inside a tier.
	BurstLinks []DepLink
	// Tiers, when set, are the target's processes by kind (the reference
	// stack's); without them Procs are the faults' "target" tiers.
	Tiers []faults.Tier
	// PSPWebhooks says fakepsp delivers its events to the target.
	PSPWebhooks bool
	// Regions, when set, is a standby Region the chaos check may fail over
	// to, and the links its replication crosses.
	Regions *faults.Regions
	// Behind, when set, waits for the target's asynchronous tiers to drain
	// and returns what they did: effects (credits, notifications) for the
	// whole history, and the sink's own history (ledger credits and sink
	// reads). The chaos check checks both.
	Behind func(ctx context.Context) (effects, sink history.History, err error)
	// ChaosFaults, when set, narrows the chaos schedule to these catalogue
	// faults (a spec aiming at one tier's guard).
	ChaosFaults []string
	// MaxWait bounds how long a check may wait for a window or horizon.
	MaxWait time.Duration
	// Advance, when set, moves the target's clocks forward by an offset
	// instead of idemcheck sleeping through long windows.
	Advance func(offset time.Duration) error
	offset  time.Duration
	Seed    uint64
	// Run tells this run's orders and keys from those of every earlier run
	// with the same seed: a deployment's database and a fakepsp that outlive
	// runs still hold theirs, and a key reused would be judged as a replay.
	// The seed alone decides the faults and their schedule.
	Run uint32
	Log io.Writer
	// Progress takes the lines a long run writes as it goes (a chaos
	// round's end), which --quiet keeps; nil drops them.
	Progress io.Writer

	mu      sync.Mutex
	counter atomic.Int64
	faults  []checker.FaultWindow
	keyRand *rand.Rand
	// orders is every order the run sent (orders.go).
	orders orderState
	attr   attrCache
	view   roundView
	refs   refundCache
	// badPath is set at the first success answer outcomes.payment_id
	// matched nothing in (paymentid.go).
	badPath     sync.Once
	badPathErr  error
	badPathSeen atomic.Bool
	waited      waits
}

// Intent is one logical payment idemcheck makes up.
type Intent struct {
	Meaning driver.Meaning
	Key     string
	Caller  int
}

// NewIntent makes a payment with an order id and an amount no other intent
// of this run uses, in a currency and with a payment method drawn from the
// run's seed (meaning.go): PSP charges are attributed by the order id where the
// target passes it on (metadata, description), by the amount otherwise.
// The order id has a fixed width so that no order id contains another.
func (e *Env) NewIntent(caller int) Intent {
	n := e.counter.Add(1)
	in := Intent{
		Meaning: driver.Meaning{OrderID: fmt.Sprintf("ord-%06d-%05d", (e.Seed+uint64(e.Run))%1000000, n), Amount: 1000 + n},
		Key:     e.NewKey(),
		Caller:  caller,
	}
	e.drawMeaning(n, &in.Meaning)
	return in
}

// NewKey draws a key of the configured format from the run's seed.
func (e *Env) NewKey() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.keyRand == nil {
		e.keyRand = e.Rand(fmt.Sprintf("keys-%d", e.Run))
	}
	return NewKey(e.keyRand, e.Cfg.Create.Key)
}

// NoteFault records a fault window for the reports' pictures.
func (e *Env) NoteFault(name string, start, end int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.faults = append(e.faults, checker.FaultWindow{Name: name, Start: start, End: end})
}

// ForgetFaults drops the fault windows that ended before t and returns
// them: a long chaos run's judged rounds need them no more (rounds.go).
func (e *Env) ForgetFaults(t int64) []checker.FaultWindow {
	e.mu.Lock()
	defer e.mu.Unlock()
	var gone, left []checker.FaultWindow
	for _, w := range e.faults {
		if w.End < t {
			gone = append(gone, w)
		} else {
			left = append(left, w)
		}
	}
	e.faults = left
	return gone
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

// Progressf writes a progress line (Progress).
func (e *Env) Progressf(format string, args ...any) {
	if e.Progress != nil {
		e.mu.Lock()
		fmt.Fprintf(e.Progress, format+"\n", args...)
		e.mu.Unlock()
	}
}

// Settle waits until the effect count stays unchanged for the config's settle
// period (bounded), so a check judges effects after the target went quiet.
func (e *Env) Settle(ctx context.Context) {
	if e.Effects == nil {
		return
	}
	defer e.NoteWait(WaitSettle, time.Now())
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

// PSPAddr is host:port where the target reaches fakepsp: the recording
// front when there is one.
func (e *Env) PSPAddr() string {
	if e.Front != nil {
		return e.Front.Addr()
	}
	if e.PSP != nil {
		if u, err := url.Parse(e.PSP.URL()); err == nil {
			return u.Host
		}
	}
	return ""
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
	return e.sleepFor(ctx, WaitWindow, d)
}

// CanWait reports whether d is within what the run may wait.
func (e *Env) CanWait(d time.Duration) bool { return e.Advance != nil || d <= e.MaxWait }

// DepLink is a Toxiproxy link the target reaches one of its dependencies through.
// BurstableLinks are the links chaos's latency bursts take turns on:
// Links, then BurstLinks.
func (e *Env) BurstableLinks() []DepLink {
	return append(append([]DepLink(nil), e.Links...), e.BurstLinks...)
}

type DepLink struct {
	Name string
	Link *faults.Link
	// Blind, when set, says why what the link's faults caught cannot be
	// seen (a toxiproxy-server of the user's without metrics).
	Blind string
}
