// Package refstack starts the whole reference payment path as OS processes:
// a load balancer, two API servers, the resolver and the webhook handler,
// against a given Postgres, Valkey and PSP. Each stack gets its own Postgres
// schema and Valkey key prefix, so stacks never see each other's rows.
package refstack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/internal/freeport"
	"github.com/idemcheck/idemcheck/stack/launch"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

// Config says what the stack runs against.
type Config struct {
	PostgresDSN string // a superuser DSN; the stack makes its own schema in it
	ValkeyAddr  string
	// TierPostgresDSN and TierValkeyAddr, when set, are where the tiers
	// reach the same servers: a Toxiproxy link in front of each, so that
	// chaos can stretch a read-then-write inside a tier. The harness's
	// own reads (the ledger, the credits) stay on the direct addresses,
	// so a burst never slows the evidence.
	TierPostgresDSN string
	TierValkeyAddr  string
	PSPURL          string
	PSPKey          string
	WebhookSecret   string
	// Mutants switch guards off (see package mutant); each tier gets its own.
	Mutants mutant.Set
	// Toxi, when set, puts a link in front of the LB (for the phone) and
	// between the LB and each API server, so replies can be lost there.
	Toxi *faults.Toxiproxy
	// APIs is the number of API servers; default 2.
	APIs int
	// ResolverRate caps PSP replays per second and ResolverBurst their burst
	// (0: the tier's defaults).
	ResolverRate  float64
	ResolverBurst int
	// APIConns is each API server's Postgres pool size (default 16).
	APIConns int
	// NoResolver and NoWebhook leave those tiers out.
	NoResolver, NoWebhook bool
	// LogDir holds the processes' logs and address files; default a new temp dir.
	LogDir string
	// Name labels the schema and key prefix; default random.
	Name string
	// Region names the stack's Region (R1, R2) to the resolver, which derives
	// nothing from it except under the mutant region-attempt-key (G2a).
	Region string
}

// Tier is one running tier process.
type Tier struct {
	Name  string
	URL   string // public URL ("" for the resolver)
	Admin string // loopback admin URL: failpoints, clock, stats
	Proc  *faults.Process
	addr  string // fixed public listen address, kept across restarts
	// launched is the process as started, with its address file.
	launched *launch.Tier
}

// Stack is a running reference stack.
type Stack struct {
	Cfg      Config
	LB       *Tier
	APIs     []*Tier
	Resolver *Tier
	Webhook  *Tier
	// Extra are tiers started with StartTier (relay, worker, replicator).
	Extra []*Tier
	// URL is where a phone sends requests: the LB, or its link when Toxi is set.
	URL string
	// PhoneLink fronts the LB; APILinks sit between the LB and each API.
	PhoneLink *faults.Link
	APILinks  []*faults.Link
	// DSN is the stack's own DSN (its schema on the search path); TierDSN
	// is the tiers' (through Config.TierPostgresDSN when set).
	DSN     string
	TierDSN string
	Schema  string
	Prefix  string
	Ledger  *ledger.Ledger
	pool    *pgxpool.Pool
	logDir  string
	ownDir  bool
}

func randName() string {
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// TierValkey is where the tiers reach Valkey.
func (s *Stack) TierValkey() string {
	if s.Cfg.TierValkeyAddr != "" {
		return s.Cfg.TierValkeyAddr
	}
	return s.Cfg.ValkeyAddr
}

// WithSearchPath returns dsn with search_path set to schema.
func WithSearchPath(dsn, schema string) string {
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + "search_path=" + schema
}

// Start brings the stack up: schema, then API servers, LB, resolver, webhook.
func Start(ctx context.Context, cfg Config) (s *Stack, err error) {
	if cfg.PostgresDSN == "" || cfg.ValkeyAddr == "" || cfg.PSPURL == "" {
		return nil, errors.New("refstack: PostgresDSN, ValkeyAddr and PSPURL are required")
	}
	if cfg.APIs == 0 {
		cfg.APIs = 2
	}
	if cfg.Name == "" {
		cfg.Name = randName()
	}
	s = &Stack{Cfg: cfg, Schema: "s_" + cfg.Name, Prefix: cfg.Name + ":", logDir: cfg.LogDir}
	if s.logDir == "" {
		if s.logDir, err = os.MkdirTemp("", "refstack-"+cfg.Name+"-"); err != nil {
			return nil, err
		}
		s.ownDir = true
	}
	defer func() {
		if err != nil {
			s.Stop()
		}
	}()
	if err := s.migrate(ctx); err != nil {
		return s, err
	}
	ms := cfg.Mutants.String()
	common := s.common()
	var backends []string
	for i := range cfg.APIs {
		name := "api-" + strconv.Itoa(i+1)
		addr, err := freeport.Addr()
		if err != nil {
			return s, err
		}
		args := append([]string{"-name", name, "-listen", addr, "-valkey", s.TierValkey(), "-ns", s.Prefix}, common...)
		if cfg.APIConns > 0 {
			args = append(args, "-pg-conns", strconv.Itoa(cfg.APIConns))
		}
		t, err := s.start(ctx, "api", name, addr, args)
		if err != nil {
			return s, err
		}
		s.APIs = append(s.APIs, t)
		backend := addr
		if cfg.Toxi != nil {
			l, err := cfg.Toxi.Link(cfg.Name+"-lb-"+name, addr)
			if err != nil {
				return s, err
			}
			s.APILinks = append(s.APILinks, l)
			backend = l.Addr()
		}
		backends = append(backends, "http://"+backend)
	}
	lbAddr, err := freeport.Addr()
	if err != nil {
		return s, err
	}
	if s.LB, err = s.start(ctx, "lb", "lb", lbAddr, []string{"-listen", lbAddr, "-backends", strings.Join(backends, ",")}); err != nil {
		return s, err
	}
	s.URL = s.LB.URL
	if cfg.Toxi != nil {
		if s.PhoneLink, err = cfg.Toxi.Link(cfg.Name+"-phone-lb", lbAddr); err != nil {
			return s, err
		}
		s.URL = "http://" + s.PhoneLink.Addr()
	}
	if !cfg.NoResolver {
		if err := s.StartResolver(ctx); err != nil {
			return s, err
		}
	}
	if !cfg.NoWebhook && cfg.WebhookSecret != "" {
		addr, err := freeport.Addr()
		if err != nil {
			return s, err
		}
		if s.Webhook, err = s.start(ctx, "webhook", "webhook", addr, []string{"-listen", addr, "-pg", s.TierDSN,
			"-secret", cfg.WebhookSecret, "-mutants", ms}); err != nil {
			return s, err
		}
	}
	return s, nil
}

// common are the flags every tier on the ledger's request path takes.
func (s *Stack) common() []string {
	return []string{"-pg", s.TierDSN, "-psp", s.Cfg.PSPURL, "-psp-key", s.Cfg.PSPKey, "-mutants", s.Cfg.Mutants.String()}
}

// StartResolver starts the stack's resolver. Start does unless
// Config.NoResolver: a standby Region's waits until it is promoted, or it
// would resume payments its primary is still settling.
func (s *Stack) StartResolver(ctx context.Context) error {
	args := s.common()
	if s.Cfg.Region != "" {
		args = append(args, "-region", s.Cfg.Region)
	}
	if s.Cfg.ResolverRate > 0 {
		args = append(args, "-rate", strconv.FormatFloat(s.Cfg.ResolverRate, 'f', -1, 64))
	}
	if s.Cfg.ResolverBurst > 0 {
		args = append(args, "-burst", strconv.Itoa(s.Cfg.ResolverBurst))
	}
	t, err := s.start(ctx, "resolver", "resolver", "", args)
	if t != nil {
		s.Resolver = t
	}
	return err
}

func (s *Stack) migrate(ctx context.Context) error {
	admin, err := pgx.Connect(ctx, s.Cfg.PostgresDSN)
	if err != nil {
		return fmt.Errorf("refstack: postgres: %w", err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{s.Schema}.Sanitize()); err != nil {
		return fmt.Errorf("refstack: schema: %w", err)
	}
	s.DSN = WithSearchPath(s.Cfg.PostgresDSN, s.Schema)
	s.TierDSN = s.DSN
	if s.Cfg.TierPostgresDSN != "" {
		s.TierDSN = WithSearchPath(s.Cfg.TierPostgresDSN, s.Schema)
	}
	if s.pool, err = pgxpool.New(ctx, s.DSN); err != nil {
		return err
	}
	s.Ledger = &ledger.Ledger{Pool: s.pool}
	return ledger.MigrateWith(ctx, s.pool, ledger.Options{NoDurableGuard: s.Cfg.Mutants.On(mutant.NoDurableGuard)})
}

// StartTier runs one more tier process of kind (relay, worker, ...) as name
// with the stack's logs and story scale, listening on addr when it serves;
// Stop stops it with the rest. args must accept -addr-file.
func (s *Stack) StartTier(ctx context.Context, kind, name, addr string, args []string) (*Tier, error) {
	t, err := s.start(ctx, kind, name, addr, args)
	if t != nil {
		s.Extra = append(s.Extra, t)
	}
	return t, err
}

// start runs one tier process and waits for it to publish its addresses.
func (s *Stack) start(ctx context.Context, kind, name, addr string, args []string) (*Tier, error) {
	lt, err := launch.Run(launch.Spec{Dir: s.logDir, Name: name, Tier: kind, Args: args})
	if err != nil {
		return nil, err
	}
	t := &Tier{Name: name, addr: addr, Proc: lt.Proc, launched: lt}
	return t, s.await(ctx, t)
}

func (s *Stack) await(ctx context.Context, t *Tier) error {
	if err := t.launched.Await(ctx); err != nil {
		return fmt.Errorf("refstack: %w", err)
	}
	t.URL, t.Admin = t.launched.Addrs["http"], t.launched.Addrs["admin"]
	return nil
}

// Restart restarts a tier that died (a crash failpoint or a kill) on its
// same address and waits for it to serve again.
func (s *Stack) Restart(ctx context.Context, t *Tier) error {
	if !t.Proc.Exited() {
		if err := t.Proc.Kill(); err != nil {
			return err
		}
	}
	_ = os.Remove(t.launched.AddrFile)
	if err := t.Proc.Restart(); err != nil {
		return err
	}
	return s.await(ctx, t)
}

// Tiers lists every running tier.
func (s *Stack) Tiers() []*Tier {
	out := append([]*Tier{}, s.APIs...)
	for _, t := range append([]*Tier{s.LB, s.Resolver, s.Webhook}, s.Extra...) {
		if t != nil {
			out = append(out, t)
		}
	}
	return out
}

// AdvanceClocks moves every tier's clock to offset d (the story's long waits).
func (s *Stack) AdvanceClocks(d time.Duration) error {
	for _, t := range s.Tiers() {
		if t.Admin == "" || t.Proc.Exited() {
			continue
		}
		if err := storytime.SetOffset(t.Admin, d); err != nil && !errors.Is(err, storytime.ErrNoClock) {
			return err
		}
	}
	return nil
}

// LogDir is where the processes' logs are.
func (s *Stack) LogDir() string { return s.logDir }

// Stop stops every process and closes the harness's pool. The schema stays:
// the Postgres cluster belongs to the run and goes with it.
func (s *Stack) Stop() {
	for _, t := range s.Tiers() {
		if t != nil && t.Proc != nil {
			_ = t.Proc.Stop(5 * time.Second)
		}
	}
	if s.pool != nil {
		s.pool.Close()
	}
	if s.ownDir && os.Getenv("IDEMCHECK_KEEP_LOGS") == "" {
		_ = os.RemoveAll(s.logDir)
	}
}
