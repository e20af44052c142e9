package api

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

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
	fs := flag.NewFlagSet("api", flag.ContinueOnError)
	name := fs.String("name", "api-1", "server name (owner ids, logs)")
	listen := fs.String("listen", "127.0.0.1:0", "public listen address")
	addrFile := fs.String("addr-file", "", "file to publish {http, admin} URLs to")
	pg := fs.String("pg", "", "Postgres DSN")
	vk := fs.String("valkey", "", "Valkey host:port")
	ns := fs.String("ns", "", "key prefix in Valkey (one per stack)")
	pspURL := fs.String("psp", "", "PSP base URL")
	pspKey := fs.String("psp-key", "", "PSP secret key")
	mutants := fs.String("mutants", "", "comma-separated mutant switches: "+fmt.Sprint(mutant.Names()))
	conns := fs.Int("pg-conns", 16, "Postgres pool size")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *pg == "" || *vk == "" || *pspURL == "" {
		return fmt.Errorf("api: -pg, -valkey and -psp are required")
	}
	ms, err := mutant.Parse(*mutants)
	if err != nil {
		return err
	}
	logger := log.New(os.Stderr, *name+" ", log.Lmicroseconds)
	pcfg, err := pgxpool.ParseConfig(*pg)
	if err != nil {
		return fmt.Errorf("api: -pg: %w", err)
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
		BetweenCheckAndWrite: func() { _ = failpoint.Hit(failpoint.BeforeClaim) }}
	srv := NewServer(Config{Name: *name, Deadline: storytime.D(storytime.Deadline), Margin: storytime.D(storytime.ClockMargin),
		KeyWindow: storytime.D(storytime.KeyWindow), Mutants: ms, Log: logger}, clock, ks, &ledger.Ledger{Pool: pool}, NewPSP(*pspURL, *pspKey))
	pub, err := failpoint.Serve(ctx, *listen, srv.Handler())
	if err != nil {
		return err
	}
	admin, err := failpoint.ServeAdmin(ctx, clock, map[string]http.Handler{StatsPath: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(srv.Stats.Snapshot())
	})})
	if err != nil {
		return err
	}
	if err := failpoint.WriteAddrs(*addrFile, map[string]string{"http": pub, "admin": admin}); err != nil {
		return err
	}
	logger.Printf("serving %s admin %s mutants=%q scale=%v", pub, admin, ms.String(), storytime.Scale)
	<-ctx.Done()
	return nil
}

// ReadStats reads an API server's counters from its admin URL.
func ReadStats(adminURL string) (map[string]int64, error) {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(adminURL + StatsPath)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var m map[string]int64
	return m, json.NewDecoder(resp.Body).Decode(&m)
}
