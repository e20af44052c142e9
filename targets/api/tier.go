package api

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/keystore"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/storytime"
	"github.com/idemcheck/idemcheck/targets/tier"
)

func init() { tier.Register("api", Main) }

// StatsPath serves Stats on the admin endpoint.
const StatsPath = "/stats"

// Main runs one API server process.
func Main(ctx context.Context, args []string) error {
	f := tier.NewFlags("api")
	f.Listen()
	pg, vk := f.Postgres(), f.Valkey()
	pspURL, pspKey := f.PSP()
	mutants := f.Mutants()
	name := f.String("name", "api-1", "server name (owner ids, logs)")
	ns := f.String("ns", "", "key prefix in Valkey (one per stack)")
	conns := f.Int("pg-conns", 16, "Postgres pool size")
	f.Require("pg", "valkey", "psp")
	if err := f.Parse(args); err != nil {
		return err
	}
	ms := *mutants
	logger := log.New(os.Stderr, *name+" ", log.Lmicroseconds)
	pcfg, err := pgxpool.ParseConfig(*pg)
	if err != nil {
		return f.Bad(fmt.Errorf("-pg: %w", err))
	}
	pcfg.MaxConns = int32(*conns)
	ledger.Tune(pcfg)
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	vc, err := keystore.Dial(*vk)
	if err != nil {
		return fmt.Errorf("api: valkey: %w", err)
	}
	defer vc.Close()
	clock := &storytime.Clock{}
	ks := &keystore.Store{C: vc, Prefix: *ns, CleanupTTL: 2 * storytime.D(storytime.BuyerBack),
		TrustPresence: ms.On(mutant.ReadPathTrustsPresence), CheckThenInsert: ms.On(mutant.CheckThenInsert),
		BetweenCheckAndWrite: func() { _ = failpoint.Hit(BeforeClaim) }}
	srv := NewServer(Config{Name: *name, Deadline: storytime.D(storytime.Deadline), Margin: storytime.D(storytime.ClockMargin),
		KeyWindow: storytime.D(storytime.KeyWindow), Mutants: ms, Log: logger}, clock, ks, &ledger.Ledger{Pool: pool}, NewPSP(*pspURL, *pspKey))
	pub, err := f.Serve(ctx, srv.Handler())
	if err != nil {
		return err
	}
	admin, err := f.Publish(ctx, clock, map[string]http.Handler{StatsPath: tier.JSON(func() any { return srv.Stats.Snapshot() })},
		map[string]string{"http": pub})
	if err != nil {
		return err
	}
	logger.Printf("serving %s admin %s mutants=%q scale=%v", pub, admin, ms.String(), storytime.Scale)
	<-ctx.Done()
	return nil
}

// ReadStats reads an API server's counters from its admin URL.
func ReadStats(adminURL string) (map[string]int64, error) {
	var m map[string]int64
	err := faults.GetJSON(adminURL+StatsPath, &m)
	return m, err
}
