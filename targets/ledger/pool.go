package ledger

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Tune sets what every pool of the payment path wants. The statements are
// prepared once per connection (pgx's statement cache); Postgres would still
// plan the CTE of applyOne afresh on each of its first executions and
// whenever a custom plan looks cheaper, and planning a four-part
// data-modifying CTE costs more than running it. A generic plan is right
// for every statement here: each one reaches its rows by a unique index.
func Tune(cfg *pgxpool.Config) { planCache(cfg, "force_generic_plan") }

// OpenBatch connects a pool for statements that take a whole batch's ids as
// one array (the relay's and the worker's). Such a statement is planned
// afresh for every execution, with its array in hand: a generic plan costs
// an array parameter as ten elements, so a plan cached while a table was
// small may scan it and test every row against the whole array once it has
// grown, rows times ids. In one delivery bench run the worker's batch
// lookup of payments took 38 ms a call where it takes 1.4 (pg_stat_statements);
// none did in the runs after this. Planning costs a fraction of a
// millisecond a batch.
func OpenBatch(ctx context.Context, dsn string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	planCache(cfg, "force_custom_plan")
	return pgxpool.NewWithConfig(ctx, cfg)
}

// planCache sets plan_cache_mode unless the DSN already does.
func planCache(cfg *pgxpool.Config, mode string) {
	if cfg.ConnConfig.RuntimeParams == nil {
		cfg.ConnConfig.RuntimeParams = map[string]string{}
	}
	if _, set := cfg.ConnConfig.RuntimeParams["plan_cache_mode"]; !set {
		cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = mode
	}
}
