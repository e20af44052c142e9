package webhook

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

	"github.com/idemcheck/idemcheck/targets/api"
	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/storytime"
	"github.com/idemcheck/idemcheck/targets/tier"
)

func init() { tier.Register("webhook", Main) }

// Main runs the webhook handler process.
func Main(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("webhook", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:0", "listen address")
	addrFile := fs.String("addr-file", "", "file to publish {http, admin} URLs to")
	pg := fs.String("pg", "", "Postgres DSN")
	secret := fs.String("secret", "", "webhook signing secret (whsec_...)")
	mutants := fs.String("mutants", "", "comma-separated mutant switches")
	tolerance := fs.Duration("tolerance", 300*time.Second, "accepted signature age")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *pg == "" || *secret == "" {
		return fmt.Errorf("webhook: -pg and -secret are required")
	}
	ms, err := mutant.Parse(*mutants)
	if err != nil {
		return err
	}
	pool, err := pgxpool.New(ctx, *pg)
	if err != nil {
		return err
	}
	defer pool.Close()
	clock := &storytime.Clock{}
	h := &Handler{Secret: *secret, Tolerance: *tolerance, Clock: clock, Ledger: &ledger.Ledger{Pool: pool}, Mutants: ms,
		Log: log.New(os.Stderr, "webhook ", log.Lmicroseconds)}
	mux := http.NewServeMux()
	mux.Handle("POST "+Path, h)
	pub, err := failpoint.Serve(ctx, *listen, mux)
	if err != nil {
		return err
	}
	admin, err := failpoint.ServeAdmin(ctx, clock, map[string]http.Handler{api.StatsPath: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(h.Stats.Snapshot())
	})})
	if err != nil {
		return err
	}
	if err := failpoint.WriteAddrs(*addrFile, map[string]string{"http": pub, "admin": admin}); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}
