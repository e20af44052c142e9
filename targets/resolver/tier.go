package resolver

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemcheck/idemcheck/targets/api"
	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/storytime"
	"github.com/idemcheck/idemcheck/targets/tier"
)

func init() { tier.Register("resolver", Main) }

// Main runs the resolver process.
func Main(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("resolver", flag.ContinueOnError)
	addrFile := fs.String("addr-file", "", "file to publish {admin} URL to")
	pg := fs.String("pg", "", "Postgres DSN")
	pspURL := fs.String("psp", "", "PSP base URL")
	pspKey := fs.String("psp-key", "", "PSP secret key")
	mutants := fs.String("mutants", "", "comma-separated mutant switches")
	rate := fs.Float64("rate", 200, "PSP replays per second at most (0: unlimited)")
	burst := fs.Int("burst", 20, "replay burst")
	region := fs.String("region", "", "the resolver's Region (R1, R2)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *pg == "" || *pspURL == "" {
		return fmt.Errorf("resolver: -pg and -psp are required")
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
	r := New(Config{Interval: storytime.D(0.5), Margin: storytime.D(storytime.ClockMargin), Timeout: storytime.D(storytime.Deadline),
		Rate: *rate, Burst: *burst, Mutants: ms, Region: *region, Log: log.New(os.Stderr, "resolver ", log.Lmicroseconds)},
		clock, &ledger.Ledger{Pool: pool}, api.NewPSP(*pspURL, *pspKey))
	admin, err := failpoint.ServeAdmin(ctx, clock, map[string]http.Handler{api.StatsPath: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(r.Stats.Snapshot())
	})})
	if err != nil {
		return err
	}
	if err := failpoint.WriteAddrs(*addrFile, map[string]string{"admin": admin}); err != nil {
		return err
	}
	r.Run(ctx)
	return nil
}
