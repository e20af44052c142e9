package ledger

import (
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

func TestPlanCacheKeepsWhatTheDSNSays(t *testing.T) {
	for _, tc := range []struct{ dsn, want string }{
		{"postgres://u@127.0.0.1:5432/db", "force_custom_plan"},
		{"postgres://u@127.0.0.1:5432/db?plan_cache_mode=auto", "auto"},
	} {
		cfg, err := pgxpool.ParseConfig(tc.dsn)
		if err != nil {
			t.Fatal(err)
		}
		planCache(cfg, "force_custom_plan")
		if got := cfg.ConnConfig.RuntimeParams["plan_cache_mode"]; got != tc.want {
			t.Errorf("%s: plan_cache_mode %q, want %q", tc.dsn, got, tc.want)
		}
	}
}
