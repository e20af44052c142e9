// Package resolver settles what the API could not: UNKNOWN payments, PENDING
// payments whose deadline plus margin has passed (a crashed owner), and
// refunds whose outcome is unknown. It replays the derived PSP key, so the PSP
// returns the saved result instead of charging again, and moves the payment
// by compare-and-set, so racing a takeover or a webhook is harmless. Its own
// rate cap keeps replays from starving live payments.
//
// A replay can only repeat what the PSP saved under the key, and Stripe saves
// a 500 answered after the charge like any other result. When the replay
// leaves the outcome unknown, the resolver looks the charge up at the PSP by
// the payment id in its metadata (docs/PITFALLS.md#stripe: ask the system of record).
package resolver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/targets/api"
	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

// SweepPoint is the resolver's failpoint: it sits before each swept row is
// settled (an error skips the row this sweep, a crash kills the resolver
// with rows left unsettled).
const SweepPoint = "resolver-sweep"

func init() { failpoint.Register(SweepPoint) }

// Config of a resolver.
type Config struct {
	Interval time.Duration // between sweeps
	Margin   time.Duration // PENDING rows are swept after deadline + margin
	Timeout  time.Duration // one PSP call
	Rate     float64       // PSP replays per second, at most
	Burst    int
	Batch    int
	Mutants  mutant.Set
	// Region names the resolver's Region; only the mutant
	// region-attempt-key puts it in a PSP key.
	Region string
	Log    *log.Logger
}

// Stats are counters a spec reads.
type Stats struct {
	Sweeps, PSPCalls, Settled, RefundPSPCalls, RefundsSettled, Throttled atomic.Int64
	// Searches counts look-ups by metadata after an unknown replay; Found
	// those that found the PSP's verdict (the replay could not give it).
	Searches, Found atomic.Int64
}

// Snapshot returns Stats as numbers.
func (s *Stats) Snapshot() map[string]int64 {
	return map[string]int64{"sweeps": s.Sweeps.Load(), "psp_calls": s.PSPCalls.Load(), "settled": s.Settled.Load(),
		"refund_psp_calls": s.RefundPSPCalls.Load(), "refunds_settled": s.RefundsSettled.Load(), "throttled": s.Throttled.Load(),
		"searches": s.Searches.Load(), "found": s.Found.Load()}
}

// Resolver sweeps the ledger.
type Resolver struct {
	cfg    Config
	clock  *storytime.Clock
	lg     *ledger.Ledger
	psp    *api.PSP
	bucket *Bucket
	Stats  Stats
}

// New wires a resolver.
func New(cfg Config, clock *storytime.Clock, lg *ledger.Ledger, psp *api.PSP) *Resolver {
	if cfg.Batch <= 0 {
		cfg.Batch = 100
	}
	if cfg.Burst <= 0 {
		cfg.Burst = 1
	}
	return &Resolver{cfg: cfg, clock: clock, lg: lg, psp: psp, bucket: NewBucket(cfg.Rate, cfg.Burst)}
}

// Run sweeps until ctx ends.
func (r *Resolver) Run(ctx context.Context) {
	t := time.NewTicker(r.cfg.Interval)
	defer t.Stop()
	for {
		r.Sweep(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Sweep settles one batch.
func (r *Resolver) Sweep(ctx context.Context) {
	r.Stats.Sweeps.Add(1)
	rows, err := r.lg.Sweep(ctx, r.clock.Now().UnixNano(), int64(r.cfg.Margin), r.cfg.Batch)
	if err != nil {
		r.cfg.Log.Printf("sweep: %v", err)
		return
	}
	for _, p := range rows {
		if !r.bucket.Wait(ctx) {
			return
		}
		if err := failpoint.Hit(SweepPoint); err != nil {
			continue
		}
		switch {
		case p.State == ledger.Unknown || p.State == ledger.Pending:
			r.settle(ctx, p)
		case p.RefundState == ledger.RefundRequested || p.RefundState == ledger.RefundUnknown:
			r.settleRefund(ctx, p)
		}
	}
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (r *Resolver) settle(ctx context.Context, p ledger.Payment) {
	key := p.PSPKey
	if r.cfg.Mutants.On(mutant.ResolverFreshPSPKey) {
		key = p.ID + ":resolve-" + randHex(3)
	}
	if r.cfg.Mutants.On(mutant.RegionAttemptKey) && r.cfg.Region != "" {
		key = p.ID + ":" + r.cfg.Region + ":1" // the Region's own first attempt (G2a)
	}
	cctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	r.Stats.PSPCalls.Add(1)
	res, err := r.psp.Charge(cctx, key, p.Amount, p.Currency, p.Method, map[string]string{
		"payment_id": p.ID, "intent": api.Scope(p.Caller, p.Key, true)})
	cancel()
	if err != nil {
		r.cfg.Log.Printf("replay %s: %v", key, err)
	}
	if res.Verdict == api.Unknown && !r.cfg.Mutants.On(mutant.ResolverReplayOnly) {
		res = r.find(ctx, p, res)
	}
	m := ledger.Move{ID: p.ID, From: []string{ledger.Pending, ledger.Unknown}, Charge: res.ChargeID}
	if r.cfg.Mutants.On(mutant.RandomEventID) {
		m.EventSuffix = ":" + randHex(4) // a random event id: another Region cannot re-create it (G2b)
	}
	switch res.Verdict {
	case api.Succeeded:
		m.To = ledger.Succeeded
	case api.Failed:
		m.To = ledger.Failed
	default:
		if p.State != ledger.Pending {
			return // still unknown; the next sweep tries again with the same key
		}
		m.To, m.From = ledger.Unknown, []string{ledger.Pending}
	}
	moved, err := r.lg.Apply(ctx, m, nil)
	if err != nil {
		r.cfg.Log.Printf("settle %s -> %s: %v", p.ID, m.To, err)
		return
	}
	if moved && m.To != ledger.Unknown {
		r.Stats.Settled.Add(1)
	}
}

// find asks the PSP for the payment by its metadata after a replay that
// settled nothing (a saved 500, a lost reply). Only a verdict the PSP's own
// record states replaces the replay's; "not found" stays unknown.
func (r *Resolver) find(ctx context.Context, p ledger.Payment, replay api.Result) api.Result {
	cctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	r.Stats.Searches.Add(1)
	res, err := r.psp.FindCharge(cctx, p.ID)
	if err != nil {
		r.cfg.Log.Printf("search %s: %v", p.ID, err)
		return replay
	}
	if res.Verdict == api.Unknown {
		r.cfg.Log.Printf("replay %s answered %d %q; %s", p.PSPKey, replay.Status, replay.Message, res.Message)
		return replay
	}
	r.Stats.Found.Add(1)
	return res
}

func (r *Resolver) settleRefund(ctx context.Context, p ledger.Payment) {
	key := p.RefundKey
	if key == "" {
		key = api.RefundKey(p.ID)
	}
	if r.cfg.Mutants.On(mutant.FreshRefundKey) {
		key = api.RefundKey(p.ID) + ":retry-" + randHex(3)
	}
	cctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	r.Stats.RefundPSPCalls.Add(1)
	res, err := r.psp.Refund(cctx, key, p.PSPCharge, p.RefundAmount, map[string]string{"payment_id": p.ID, "intent": api.Scope(p.Caller, p.Key, true), "refund_request": api.RefundKey(p.ID)})
	cancel()
	if err != nil {
		r.cfg.Log.Printf("refund replay %s: %v", key, err)
	}
	if res.Verdict != api.Succeeded {
		if p.RefundState == ledger.RefundRequested {
			_, _ = r.lg.SetRefund(ctx, p.ID, ledger.RefundRequested, ledger.RefundUnknown, "", "")
		}
		return // unknown stays unknown: retried with the same key, never guessed
	}
	ok, err := r.lg.SetRefund(ctx, p.ID, p.RefundState, ledger.Refunded, "", res.RefundID)
	if err != nil {
		r.cfg.Log.Printf("refund settle %s: %v", p.ID, err)
		return
	}
	if ok {
		r.Stats.RefundsSettled.Add(1)
	}
}

// Bucket is a token bucket: rate tokens per second, at most burst stored.
type Bucket struct {
	mu     sync.Mutex
	rate   float64
	burst  float64
	tokens float64
	last   time.Time
}

// NewBucket returns a full bucket; rate <= 0 means unlimited.
func NewBucket(rate float64, burst int) *Bucket {
	return &Bucket{rate: rate, burst: float64(burst), tokens: float64(burst), last: time.Now()}
}

// Reserve takes a token and returns how long to wait before using it.
func (b *Bucket) Reserve(now time.Time) time.Duration {
	if b.rate <= 0 {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tokens += now.Sub(b.last).Seconds() * b.rate
	if b.tokens > b.burst {
		b.tokens = b.burst
	}
	b.last = now
	b.tokens--
	if b.tokens >= 0 {
		return 0
	}
	return time.Duration(-b.tokens / b.rate * float64(time.Second))
}

// Wait blocks for a token; false when ctx ended first.
func (b *Bucket) Wait(ctx context.Context) bool {
	d := b.Reserve(time.Now())
	if d == 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
