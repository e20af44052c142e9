package ledger

import "github.com/jackc/pgx/v5/pgxpool"

// Tune sets what every pool of the payment path wants. The statements are
// prepared once per connection (pgx's statement cache); Postgres would still
// plan the CTE of applyOne afresh on each of its first executions and
// whenever a custom plan looks cheaper, and planning a four-part
// data-modifying CTE costs more than running it. A generic plan is right
// for every statement here: each one reaches its rows by a unique index.
func Tune(cfg *pgxpool.Config) {
	if cfg.ConnConfig.RuntimeParams == nil {
		cfg.ConnConfig.RuntimeParams = map[string]string{}
	}
	if _, set := cfg.ConnConfig.RuntimeParams["plan_cache_mode"]; !set {
		cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_generic_plan"
	}
}
