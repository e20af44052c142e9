package resolver

import (
	"context"
	"log"
	"net/http"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemcheck/idemcheck/targets/api"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/storytime"
	"github.com/idemcheck/idemcheck/targets/tier"
)

func init() { tier.Register("resolver", Main) }

// Main runs the resolver process.
func Main(ctx context.Context, args []string) error {
	f := tier.NewFlags("resolver")
	pg := f.Postgres()
	pspURL, pspKey := f.PSP()
	ms := f.Mutants()
	rate := f.Float64("rate", 200, "PSP replays per second at most (0: unlimited)")
	burst := f.Int("burst", 20, "replay burst")
	region := f.String("region", "", "the resolver's Region (R1, R2)")
	f.Require("pg", "psp")
	if err := f.Parse(args); err != nil {
		return err
	}
	pool, err := pgxpool.New(ctx, *pg)
	if err != nil {
		return err
	}
	defer pool.Close()
	clock := &storytime.Clock{}
	r := New(Config{Interval: storytime.D(0.5), Margin: storytime.D(storytime.ClockMargin), Timeout: storytime.D(storytime.Deadline),
		Rate: *rate, Burst: *burst, Mutants: *ms, Region: *region, Log: log.New(os.Stderr, "resolver ", log.Lmicroseconds)},
		clock, &ledger.Ledger{Pool: pool}, api.NewPSP(*pspURL, *pspKey))
	if _, err := f.Publish(ctx, clock, map[string]http.Handler{api.StatsPath: tier.JSON(func() any { return r.Stats.Snapshot() })}, nil); err != nil {
		return err
	}
	r.Run(ctx)
	return nil
}
