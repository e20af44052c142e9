package webhook

import (
	"context"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemcheck/idemcheck/targets/api"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/storytime"
	"github.com/idemcheck/idemcheck/targets/tier"
)

func init() { tier.Register("webhook", Main) }

// Main runs the webhook handler process.
func Main(ctx context.Context, args []string) error {
	f := tier.NewFlags("webhook")
	f.Listen()
	pg := f.Postgres()
	ms := f.Mutants()
	secret := f.String("secret", "", "webhook signing secret (whsec_...)")
	tolerance := f.Duration("tolerance", 300*time.Second, "accepted signature age")
	f.Require("pg", "secret")
	if err := f.Parse(args); err != nil {
		return err
	}
	pool, err := pgxpool.New(ctx, *pg)
	if err != nil {
		return err
	}
	defer pool.Close()
	clock := &storytime.Clock{}
	h := &Handler{Secret: *secret, Tolerance: *tolerance, Ledger: &ledger.Ledger{Pool: pool}, Mutants: *ms,
		Log: log.New(os.Stderr, "webhook ", log.Lmicroseconds)}
	mux := http.NewServeMux()
	mux.Handle("POST "+Path, h)
	pub, err := f.Serve(ctx, mux)
	if err != nil {
		return err
	}
	if _, err := f.Publish(ctx, clock, map[string]http.Handler{api.StatsPath: tier.JSON(func() any { return h.Stats.Snapshot() })},
		map[string]string{"http": pub}); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}
