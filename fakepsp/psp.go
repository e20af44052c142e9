// Package fakepsp is a stateful, Stripe-compatible payment service provider for
// tests: Stripe's v1 wire protocol at one API version (DefaultAPIVersion) for
// PaymentIntents (automatic or manual capture, capture, cancel, update,
// declines with their failed charges), Charges, Refunds and their balance
// transactions, Customers, PaymentMethods, Events and webhook endpoints,
// every object with every field Stripe sends, lists with Stripe's cursors,
// expand[] of what it holds, refusing what Stripe refuses (unknown
// parameters, non-form bodies), Stripe's documented idempotency semantics,
// signed webhooks delivered at least once, fault knobs, and a ground-truth
// log of every charge and refund it made (checker ops, see HISTORY.md).
// docs/FAKEPSP.md says what it answers and what it does not model.
//
// Start one in-process with Start, or run it standalone with `idemcheck psp`.
//
// Layout (issue 52): what every PSP shares lives in fakepsp/core (key
// records, faults, ground truth, the delivery engine, and the payment
// operations: create, confirm, capture, cancel, refund); Stripe's wire
// (routes, handlers that parse a request into a core operation and render
// its outcome, objects, parameters, errors) in fakepsp/stripe, registered
// through fakepsp/dialects.go. This package is the face the rest of the
// repository uses: it lends the dialect the shared parts (host.go) and
// holds no Stripe wire outside dialects.go and stripe.go.
package fakepsp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/fakepsp/core"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// WebhookSchedule is the retry schedule of a failing webhook delivery
// (core.Schedule); zero fields take Stripe's (withDefaults).
type WebhookSchedule = core.Schedule

// RateLimits are token buckets per account and per (account, endpoint)
// (core.RateLimits); zero fields take Stripe's defaults.
type RateLimits = core.RateLimits

// Config configures a PSP. The zero value is usable.
type Config struct {
	// Addr to listen on; default "127.0.0.1:0". Loopback addresses only,
	// unless AllowRemote.
	Addr string
	// AllowRemote lets Addr be a non-loopback address (0.0.0.0:12111 in a
	// container). Anyone who reaches it can use the API and the control API
	// (no auth: it shows the secret key and arms faults); callers print
	// RemoteWarning.
	AllowRemote bool
	// KeyWindow is how long an idempotency key's saved result is kept; default 24 h.
	KeyWindow time.Duration
	// WebhookSchedule scales webhook retries.
	WebhookSchedule WebhookSchedule
	// RateLimits of the API; see RateLimits.
	RateLimits RateLimits
	// Clock is the PSP's time (key expiry, created stamps, webhook signatures);
	// default time.Now. PSP.Advance adds an offset on top of it.
	Clock func() time.Time
	// Recorder, when set, receives every charge and refund op.
	Recorder OpRecorder
	// OnOp, when set, is called with every charge and refund op.
	OnOp func(history.Op)
	// SecretKey of the first account; default a fresh "sk_test_...".
	SecretKey string
	// WebhookSecret signs every delivery; default a fresh "whsec_...".
	WebhookSecret string
	// SearchLag makes search eventually consistent, as Stripe documents it:
	// each new version of a PaymentIntent reaches search after between half
	// of SearchLag and all of it, drawn from SearchSeed and the object
	// (searchlag.go). Zero: search reads its own writes, kinder than Stripe.
	SearchLag  time.Duration
	SearchSeed uint64
	// WebhookFreedoms: duplicates and reordering of the scheduled
	// deliveries, as Stripe documents them; zero: none (freedoms.go).
	WebhookFreedoms WebhookFreedoms
	// Dialect is the PSP whose wire it speaks, a registered dialect's name
	// (Dialects); default DefaultDialect.
	Dialect string
}

// PSP is a running fake PSP. All methods are safe for concurrent use.
type PSP struct {
	cfg    Config
	srv    *http.Server
	ln     net.Listener
	url    string
	ctx    context.Context // canceled by Close: ends every wait and loop
	cancel context.CancelFunc
	wg     sync.WaitGroup // server goroutine and webhook workers

	life     sync.Mutex // guards stopping and inflight
	idle     *sync.Cond
	stopping bool
	inflight int

	faults  *Faults
	truth   *core.GroundTruth
	limiter *core.RateLimiter
	pause   *core.Pauser
	dlog    *core.DeliveryLog
	spill   *spill.Store // saved answers, events, old search versions on disk; closed last
	// logs holds the ground truth, the calls and the deliveries on disk.
	// Close leaves it open: a harness reads what happened after stopping
	// the PSP. Its file is unlinked, and closed with the PSP's last
	// reference (os.File's finalizer).
	logs  *spill.Store
	calls *core.CallLog // every API call answered: the PSP's own count

	dialect core.Dialect
	api     core.Server // the dialect's API: its routes and its objects

	mu       sync.Mutex // guards everything below, the money and the dialect's objects
	offset   time.Duration
	firstKey string
	whSecret string
	closed   bool
	holds    []*Hold // webhook holds (hold.go)

	freedoms core.FreedomCounter // how often WebhookFreedoms fired, over every endpoint
}

// Start starts a PSP listening on cfg.Addr (default 127.0.0.1:0).
func Start(cfg Config) (*PSP, error) {
	if cfg.Dialect == "" {
		cfg.Dialect = DefaultDialect
	}
	dialect, err := core.Lookup(cfg.Dialect)
	if err != nil {
		return nil, err
	}
	cfg = withDefaults(cfg, dialect)
	if err := cfg.WebhookFreedoms.valid(); err != nil {
		return nil, err
	}
	addr := cfg.Addr
	if err := CheckListen(addr, cfg.AllowRemote); err != nil {
		return nil, fmt.Errorf("fakepsp: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("fakepsp: listen %s: %w", addr, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &PSP{
		cfg:      cfg,
		dialect:  dialect,
		ln:       ln,
		url:      "http://" + ln.Addr().String(),
		ctx:      ctx,
		cancel:   cancel,
		whSecret: cfg.WebhookSecret,
		pause:    core.NewPauser(),
		spill:    &spill.Store{Owner: "fakepsp"},
		logs:     &spill.Store{Owner: "fakepsp-logs"},
	}
	p.dlog, p.calls = core.NewDeliveryLog(p.logs), core.NewCallLog(p.logs)
	p.idle = sync.NewCond(&p.life)
	p.truth = core.NewGroundTruthOn(p.logs, cfg.Recorder, cfg.OnOp)
	p.limiter = core.NewRateLimiter(cfg.RateLimits)
	p.faults = core.NewFaults(p.pause.Set, p.logs)
	p.api = p.dialect.Serve(host{p})
	p.firstKey = p.addAccount(cfg.SecretKey)
	mux := http.NewServeMux()
	p.api.Routes(mux)
	p.controlRoutes(mux)
	p.srv = &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		_ = p.srv.Serve(ln)
	}()
	return p, nil
}

func withDefaults(cfg Config, dialect core.Dialect) Config {
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.KeyWindow <= 0 {
		cfg.KeyWindow = dialect.Keys().Window
	}
	ws := &cfg.WebhookSchedule
	if d, ok := dialect.Webhooks().(interface{ Schedule() core.Schedule }); ok && ws.Base <= 0 && len(ws.Steps) == 0 {
		// The dialect documents its own retry table (Adyen's).
		*ws = d.Schedule()
	}
	if ws.Base <= 0 {
		ws.Base = time.Minute
	}
	if ws.Factor < 1 {
		ws.Factor = 2
	}
	if ws.Horizon <= 0 {
		ws.Horizon = 72 * time.Hour
	}
	if ws.Timeout <= 0 {
		ws.Timeout = 10 * time.Second
	}
	if cfg.RateLimits.PerAccount <= 0 {
		cfg.RateLimits.PerAccount = 100
	}
	if cfg.RateLimits.PerEndpoint <= 0 {
		cfg.RateLimits.PerEndpoint = 25
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.SecretKey == "" {
		cfg.SecretKey = dialect.NewCredential()
	}
	if cfg.WebhookSecret == "" {
		cfg.WebhookSecret = dialect.Webhooks().NewSecret()
	}
	return cfg
}

// CheckListen accepts a loopback host:port, or any host:port when
// allowRemote is set. The error names the rule, not the flag: callers
// prefix it with their flag or config field.
func CheckListen(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %w", addr, err)
	}
	if IsLoopback(host) || allowRemote {
		return nil
	}
	return fmt.Errorf("listen address %q is not loopback (127.0.0.1, ::1, localhost); a non-loopback address needs the explicit remote opt-in", addr)
}

// IsLoopback reports a loopback host: localhost, 127.0.0.0/8 or ::1.
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// RemoteWarning is the warning to print when fakepsp listens beyond
// loopback; "" for a loopback address.
func RemoteWarning(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err == nil && IsLoopback(host) {
		return ""
	}
	return "WARNING: fakepsp listens on " + addr + ", beyond loopback: anyone who can reach it can use its API and its control API " +
		"(/_psp/, no auth: it shows the secret key and arms faults). Use this only inside a private container network."
}

// Close stops the listener, ends held and delayed requests, stops webhook
// delivery and waits for every goroutine the PSP started.
func (p *PSP) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	// Connections first: a request cut loose by cancel must find no client
	// to answer, as a crashed PSP answers none.
	err := p.srv.Close()
	p.cancel()
	p.drain()
	p.wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	// Last: no request or worker is left to read it.
	return errors.Join(err, p.spill.Close())
}

// URL is the base URL: the dialect's API (Stripe's under /v1/), the control
// API under /_psp/.
func (p *PSP) URL() string { return p.url }

// SecretKey is the first account's secret key.
func (p *PSP) SecretKey() string { return p.firstKey }

// NewAccount creates an account and returns its secret key.
func (p *PSP) NewAccount() string { return p.addAccount("") }

// addAccount registers an account under key (a fresh one when empty).
func (p *PSP) addAccount(key string) string {
	if key == "" {
		key = p.dialect.NewCredential()
	}
	p.api.AddAccount(key)
	return key
}

// WebhookSecret signs every webhook delivery ("whsec_...").
func (p *PSP) WebhookSecret() string { return p.whSecret }

// Faults is the fault API.
func (p *PSP) Faults() *Faults { return p.faults }

// Charges returns the ground truth: every charge made, in order.
func (p *PSP) Charges() []history.Op { return p.truth.Ops(history.OpCharge) }

// ChargeCount is len(Charges()) without copying them; charges are only
// ever added, so an unchanged count is an unchanged list.
func (p *PSP) ChargeCount() int { return p.truth.Count(history.OpCharge) }

// ChargesFrom returns the charges at position pos of the ground truth's
// log (charges and refunds) or later, and the log's length when read: the
// pos to ask from next time for only the charges made since. A failed
// read is kept for ReadError too.
func (p *PSP) ChargesFrom(pos int) ([]history.Op, int, error) {
	return p.truth.OpsFrom(history.OpCharge, pos)
}

// Refunds returns the ground truth: every refund made, in order.
func (p *PSP) Refunds() []history.Op { return p.truth.Ops(history.OpRefund) }

// RefundCount is len(Refunds()) without reading them (see ChargeCount).
func (p *PSP) RefundCount() int { return p.truth.Count(history.OpRefund) }

// History returns every charge and refund op, in order.
func (p *PSP) History() history.History { return p.truth.Ops("") }

// Now is the PSP's clock: Config.Clock plus what Advance added.
func (p *PSP) Now() time.Time {
	p.mu.Lock()
	off := p.offset
	p.mu.Unlock()
	return p.cfg.Clock().Add(off)
}

// Advance moves the PSP's clock forward by d (key expiry, created stamps).
func (p *PSP) Advance(d time.Duration) {
	p.mu.Lock()
	p.offset += d
	p.mu.Unlock()
}

// Pause makes the whole PSP stop answering (API and webhooks) until Resume;
// requests wait, as against a frozen process. The control API keeps working.
func (p *PSP) Pause() { p.pause.Set(true) }

// Resume ends a Pause.
func (p *PSP) Resume() { p.pause.Set(false) }

// nowLocked is Now for callers holding p.mu.
func (p *PSP) nowLocked() time.Time { return p.cfg.Clock().Add(p.offset) }

// ops are the core's payment operations over this PSP's lock, clock,
// faults and ground truth.
func (p *PSP) ops() core.Ops {
	return core.Ops{Ctx: p.ctx, Lock: &p.mu, Now: p.nowLocked, Faults: p.faults, Truth: p.truth, Spill: p.spill}
}
