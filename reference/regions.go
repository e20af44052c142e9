package reference

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/refstack"
	"github.com/idemcheck/idemcheck/stack/region"
	"github.com/idemcheck/idemcheck/stack/services"
	"github.com/idemcheck/idemcheck/targets/mrec"
	"github.com/idemcheck/idemcheck/targets/router"
	"github.com/idemcheck/idemcheck/targets/storytime"
	"github.com/idemcheck/idemcheck/targets/worker"
)

// regions is the standby Region of a full chaos run (docs/SCENARIOS.md#G2).
// R2 has its own Postgres and Valkey, which follow R1's
// through two Toxiproxy links that carry the Region lag (logical replication
// of the ledger schema, Valkey replication). R2's LB, API servers and webhook
// wait on the replica; its resolver, relay and worker start when it takes
// over, since on a replica they would act on rows R1 is still settling. R2
// runs the change connector and the stream job from the start: they read the
// changes R1's replication applies, then R2's own. The router sends every
// caller to R1 until the failover moves them to R2.
type regions struct {
	r1, r2 *refstack.Stack
	svc1   *services.Stack
	svc2   *services.Stack
	pg, vk *faults.Link
	follow *region.PGFollow
	router *refstack.Tier
	psp    string // fakepsp's URL
	log    io.Writer
	// active is the Region that serves: R1, then R2 once it took over.
	active atomic.Pointer[refstack.Stack]
	// begun is set by the first failover; later draws find it done.
	begun    atomic.Bool
	promoted bool
	// delivery starts a Region's relay and worker (full.startDelivery).
	delivery func(ctx context.Context, st *refstack.Stack) error
	webhook  func(st *refstack.Stack) error
	// brokers and topic reach the payments log both Regions' relays
	// publish to: the failover reads R1's leftover copy there.
	brokers string
	topic   string
}

// startRegions starts R2's servers and stack beside r1 and makes R2 follow
// R1. The caller stops it (stop), also when it fails half way.
func startRegions(ctx context.Context, r1 *refstack.Stack, svc1 *services.Stack, tp *faults.Toxiproxy, pspURL string, log io.Writer) (*regions, error) {
	rg := &regions{r1: r1, svc1: svc1, psp: pspURL, log: log}
	rg.active.Store(r1)
	var err error
	if rg.svc2, err = services.Start(ctx, services.Options{Postgres: true, Valkey: true, Log: log}); err != nil {
		return rg, fmt.Errorf("R2's servers: %w", err)
	}
	cfg := r1.Cfg
	cfg.PostgresDSN, cfg.ValkeyAddr, cfg.Region, cfg.NoResolver = rg.svc2.Postgres.Endpoint(), rg.svc2.Valkey.Endpoint(), "R2", true
	// R1's tier links front R1's servers; R2's tiers reach their own directly.
	cfg.TierPostgresDSN, cfg.TierValkeyAddr = "", ""
	cfg.LogDir = filepath.Join(r1.LogDir(), "R2")
	if err := os.MkdirAll(cfg.LogDir, 0o755); err != nil {
		return rg, err
	}
	if rg.r2, err = refstack.Start(ctx, cfg); err != nil {
		return rg, fmt.Errorf("R2's stack: %w", err)
	}
	// Logical replication copies rows, not tables: both sides need them all.
	for _, st := range []*refstack.Stack{r1, rg.r2} {
		if err := worker.Migrate(ctx, st.Ledger.Pool); err != nil {
			return rg, fmt.Errorf("worker tables: %w", err)
		}
	}
	pgHost, err := hostOf(svc1.Postgres.Endpoint())
	if err != nil {
		return rg, err
	}
	if rg.pg, err = tp.Link("replication-postgres", pgHost); err != nil {
		return rg, err
	}
	if rg.vk, err = tp.Link("replication-valkey", svc1.Valkey.Endpoint()); err != nil {
		return rg, err
	}
	if rg.follow, err = region.FollowPostgres(ctx, svc1.Postgres.Endpoint(), rg.svc2.Postgres.Endpoint(), r1.Schema,
		"idemcheck_run_"+cfg.Name, rg.pg.Addr()); err != nil {
		return rg, err
	}
	if err := region.FollowValkey(ctx, svc1.Valkey.Endpoint(), rg.svc2.Valkey.Endpoint(), rg.vk.Addr()); err != nil {
		return rg, err
	}
	for _, l := range []*faults.Link{rg.pg, rg.vk} {
		if _, err := l.Delay(faults.Downstream, storytime.D(region.Lag), 0); err != nil {
			return rg, err
		}
	}
	if rg.router, err = rg.r2.StartTier(ctx, router.TierName, "router", "", []string{
		"-regions", "R1=" + r1.LB.URL + ",R2=" + rg.r2.LB.URL, "-default-home", "R1"}); err != nil {
		return rg, err
	}
	return rg, nil
}

func hostOf(dsn string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("postgres endpoint %q has no host:port", dsn)
	}
	return u.Host, nil
}

// system is the Regions as the fault catalogue sees them.
func (rg *regions) system() *faults.Regions {
	return &faults.Regions{Replication: []faults.NamedLink{{Name: "replication-postgres", Link: rg.pg}, {Name: "replication-valkey", Link: rg.vk}},
		Failover: rg.failover}
}

// tookOver says whether R2 serves.
func (rg *regions) tookOver() bool { return rg.active.Load() == rg.r2 }

// caughtUp reports whether R2 holds every payment R1 holds, in the same
// states, and every credit; what differs otherwise.
func (rg *regions) caughtUp(ctx context.Context) (bool, string, error) {
	a, err := digest(ctx, rg.r1.Ledger.Pool)
	if err != nil {
		return false, "", fmt.Errorf("R1: %w", err)
	}
	b, err := digest(ctx, rg.r2.Ledger.Pool)
	if err != nil {
		return false, "", fmt.Errorf("R2: %w", err)
	}
	return a == b, fmt.Sprintf("R1 %s, R2 %s", a, b), nil
}

func digest(ctx context.Context, pool *pgxpool.Pool) (string, error) {
	var d string
	err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM payments)::text || ' payments (' ||
 coalesce((SELECT string_agg(state || ' ' || n, ', ' ORDER BY state) FROM (SELECT state, count(*) n FROM payments GROUP BY state) s), '') ||
 '), ' || (SELECT count(*) FROM credits)::text || ' credits'`).Scan(&d)
	return d, err
}

// routerCall sends one admin PUT to the router.
func (rg *regions) routerCall(ctx context.Context, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, rg.router.Admin+path, nil)
	if err != nil {
		return err
	}
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("router PUT %s: %s", path, resp.Status)
	}
	return nil
}

// stop stops R2's tiers and servers and removes the replication objects
// left on R1's server (on a server the caller gave, they would outlive the
// run).
func (rg *regions) stop() {
	if rg.r2 != nil {
		rg.r2.Stop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, l := range []*faults.Link{rg.pg, rg.vk} {
		if l != nil {
			_ = l.Heal()
		}
	}
	if rg.follow != nil {
		var err error
		if rg.promoted {
			err = errors.Join(mrec.DropSlot(ctx, rg.follow.Primary, rg.follow.Name, 30*time.Second),
				region.DropPublication(ctx, rg.follow.Primary, rg.follow.Name))
		} else {
			err = rg.follow.Stop(ctx)
		}
		if err != nil {
			fmt.Fprintf(rg.log, "idemcheck run: R2's replication from R1 left behind: %v\n", err)
		}
	}
	if rg.svc2 != nil {
		_ = rg.svc2.Stop(ctx)
	}
}
