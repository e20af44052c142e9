package bench

import (
	"context"
	"fmt"
	"log"
	"net/url"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/valkey-io/valkey-go"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/refstack"
	"github.com/idemcheck/idemcheck/stack/region"
	"github.com/idemcheck/idemcheck/targets/keystore"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mrec"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

// runRegions prints the lag R2 observes with the links set to the story's
// region.Lag, for Postgres logical replication and Valkey replication (G2)
// and the mrec replicator (G1), as the suites/regions benchmark does: the
// link's latency is the reference.
func runRegions(ctx context.Context, r *runner) error {
	n := r.size(10, 50)
	r1, r2, toxi := r.srv.stack, r.srv.r2, r.srv.toxi
	lag := storytime.D(region.Lag)
	name := r.srv.name("rg")
	schema := "s_" + name
	pools := map[string]*pgxpool.Pool{}
	for k, dsn := range map[string]string{"R1": r1.Postgres.Endpoint(), "R2": r2.Postgres.Endpoint()} {
		admin, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return err
		}
		_, err = admin.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+schema)
		admin.Close(ctx)
		if err != nil {
			return err
		}
		p, err := pgxpool.New(ctx, refstack.WithSearchPath(dsn, schema))
		if err != nil {
			return err
		}
		defer p.Close()
		if _, err := p.Exec(ctx, `CREATE TABLE IF NOT EXISTS probe (id bigint PRIMARY KEY, at_ns bigint NOT NULL)`); err != nil {
			return err
		}
		if err := ledger.Migrate(ctx, p); err != nil {
			return err
		}
		pools[k] = p
	}
	u, err := url.Parse(r1.Postgres.Endpoint())
	if err != nil {
		return err
	}
	pgLink, err := toxi.Link(name+"-pg", u.Host)
	if err != nil {
		return err
	}
	follow, err := region.FollowPostgres(ctx, r1.Postgres.Endpoint(), r2.Postgres.Endpoint(), schema, name, pgLink.Addr())
	if err != nil {
		return err
	}
	defer func() {
		_ = pgLink.Heal()
		_ = follow.Stop(context.Background())
	}()
	vkLink, err := toxi.Link(name+"-vk", r1.Valkey.Endpoint())
	if err != nil {
		return err
	}
	if err := region.FollowValkey(ctx, r1.Valkey.Endpoint(), r2.Valkey.Endpoint(), vkLink.Addr()); err != nil {
		return err
	}
	defer func() {
		_ = vkLink.Heal()
		_ = region.PromoteValkey(context.Background(), r2.Valkey.Endpoint())
	}()
	vk1, err := keystore.Dial(r1.Valkey.Endpoint())
	if err != nil {
		return err
	}
	defer vk1.Close()
	vk2, err := keystore.Dial(r2.Valkey.Endpoint())
	if err != nil {
		return err
	}
	defer vk2.Close()
	for _, l := range []*faults.Link{pgLink, vkLink} {
		if _, err := l.Delay(faults.Downstream, lag, 0); err != nil {
			return err
		}
	}
	stopMrec, err := mrec.Lagged(ctx, pools["R1"], pools["R2"], r.srv.stack.Postgres.Endpoint(), r.srv.toxi, name, schema, lag, log.New(r.log, "mrec-bench ", log.Lmicroseconds))
	if err != nil {
		return err
	}
	defer stopMrec()
	lg := func(k string) *ledger.Ledger { return &ledger.Ledger{Pool: pools[k]} }
	probes := []*region.LagProbe{
		{Name: "postgres logical replication (G2)",
			Write: func(ctx context.Context, i int) error {
				_, err := pools["R1"].Exec(ctx, `INSERT INTO probe (id, at_ns) VALUES ($1, $2)`, i, time.Now().UnixNano())
				return err
			},
			Seen: func(ctx context.Context, i int) (bool, error) {
				var c int
				err := pools["R2"].QueryRow(ctx, `SELECT count(*) FROM probe WHERE id = $1`, i).Scan(&c)
				return c == 1, err
			}},
		{Name: "valkey replication (G2)",
			Write: func(ctx context.Context, i int) error {
				return vk1.Do(ctx, vk1.B().Set().Key(name+":probe:"+strconv.Itoa(i)).Value("1").Build()).Error()
			},
			Seen: func(ctx context.Context, i int) (bool, error) {
				err := vk2.Do(ctx, vk2.B().Get().Key(name+":probe:"+strconv.Itoa(i)).Build()).Error()
				if valkey.IsValkeyNil(err) {
					return false, nil
				}
				return err == nil, err
			}},
		{Name: "mrec replicator (G1)",
			Write: func(ctx context.Context, i int) error {
				id := "pay_bench_" + strconv.Itoa(i)
				_, err := lg("R1").InsertPending(ctx, ledger.Payment{ID: id, Caller: "bench", Key: "K" + strconv.Itoa(i), Fingerprint: "fp",
					Amount: 3000, Currency: "USD", Merchant: "m1", Method: "pm_1", OrderID: "42", PSPKey: id + ":charge"})
				return err
			},
			Seen: func(ctx context.Context, i int) (bool, error) {
				p, err := lg("R2").Get(ctx, "pay_bench_"+strconv.Itoa(i))
				return p != nil, err
			}},
	}
	for i := range n {
		for _, p := range probes {
			if err := p.Once(ctx, i); err != nil {
				return err
			}
		}
	}
	keys := []string{"region_pg_lag_p99_ms", "region_valkey_lag_p99_ms", "region_mrec_lag_p99_ms"}
	for k, p := range probes {
		p50, p99 := mrec.Percentile(p.Lags, 50), mrec.Percentile(p.Lags, 99)
		r.row(fmt.Sprintf("Region lag R1 -> R2, %s, %d writes", p.Name, n), fmt.Sprintf("p50 %.1f ms p99 %.1f ms", ms(p50), ms(p99)),
			fmt.Sprintf("link latency %.0f ms (%.1f story s)", ms(lag), region.Lag), fmt.Sprintf("%.2f", p50.Seconds()/lag.Seconds()))
		r.key(keys[k], "%.1f", ms(p99))
	}
	r.key("region_link_ms", "%.0f", ms(lag))
	return nil
}
