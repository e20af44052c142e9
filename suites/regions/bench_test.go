package regions

import (
	"context"
	"fmt"
	"log"
	"net/url"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/valkey-io/valkey-go"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/refstack"
	"github.com/idemcheck/idemcheck/stack/region"
	"github.com/idemcheck/idemcheck/stack/services"
	"github.com/idemcheck/idemcheck/targets/keystore"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mrec"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

// benchServers are the benchmark's own two Regions (no Kafka: nothing is
// credited), started on first use and stopped by TestMain.
var benchServers struct {
	r1, r2 *services.Stack
	toxi   *faults.Toxiproxy
}

func stopBenchServers() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, st := range []*services.Stack{benchServers.r2, benchServers.r1} {
		if st != nil {
			_ = st.Stop(ctx)
		}
	}
	if benchServers.toxi != nil {
		_ = benchServers.toxi.Stop()
	}
}

func benchStart(b *testing.B, ctx context.Context) {
	if benchServers.r1 != nil {
		return
	}
	var err error
	if benchServers.toxi, err = faults.StartToxiproxy(); err != nil {
		b.Fatal(err)
	}
	if benchServers.r1, err = services.Start(ctx, services.Options{Postgres: true, Valkey: true, Log: os.Stderr}); err != nil {
		b.Fatal(err)
	}
	if benchServers.r2, err = services.Start(ctx, services.Options{Postgres: true, Valkey: true, Log: os.Stderr}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkReplicationLag prints the lag R2 actually observes with the
// links set to the story's 1.0 s (region.Lag story seconds), for each
// replication path: Postgres logical replication and Valkey replication (G2)
// and the mrec replicator (G1).
func BenchmarkReplicationLag(b *testing.B) {
	ctx := context.Background()
	benchStart(b, ctx)
	r1, r2, toxi := benchServers.r1, benchServers.r2, benchServers.toxi
	lag := storytime.D(region.Lag)
	// Go calls a benchmark more than once (b.N = 1 first): each call has
	// its own schema, links and slots.
	name := "bench" + strconv.Itoa(os.Getpid()) + "_" + strconv.FormatInt(worldSeq.Add(1), 10)
	schema := "s_" + name
	pools := map[string]*pgxpool.Pool{}
	for k, st := range map[string]*services.Stack{"R1": r1, "R2": r2} {
		admin, err := pgx.Connect(ctx, st.Postgres.Endpoint())
		if err != nil {
			b.Fatal(err)
		}
		_, err = admin.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+schema)
		admin.Close(ctx)
		if err != nil {
			b.Fatal(err)
		}
		p, err := pgxpool.New(ctx, refstack.WithSearchPath(st.Postgres.Endpoint(), schema))
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		if _, err := p.Exec(ctx, `CREATE TABLE IF NOT EXISTS probe (id bigint PRIMARY KEY, at_ns bigint NOT NULL)`); err != nil {
			b.Fatal(err)
		}
		pools[k] = p
	}

	// Postgres logical replication, as G2 runs it.
	pgLink, err := toxi.Link(name+"-pg", hostPortOf(b, r1.Postgres.Endpoint()))
	if err != nil {
		b.Fatal(err)
	}
	follow, err := region.FollowPostgres(ctx, r1.Postgres.Endpoint(), r2.Postgres.Endpoint(), schema, name, pgLink.Addr())
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = pgLink.Heal()
		if err := follow.Stop(context.Background()); err != nil {
			b.Error(err)
		}
	}()
	// Valkey replication, as G2 runs it.
	vkLink, err := toxi.Link(name+"-vk", r1.Valkey.Endpoint())
	if err != nil {
		b.Fatal(err)
	}
	if err := region.FollowValkey(ctx, r1.Valkey.Endpoint(), r2.Valkey.Endpoint(), vkLink.Addr()); err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = vkLink.Heal()
		_ = region.PromoteValkey(context.Background(), r2.Valkey.Endpoint())
	}()
	vk1, err := keystore.Dial(r1.Valkey.Endpoint())
	if err != nil {
		b.Fatal(err)
	}
	defer vk1.Close()
	vk2, err := keystore.Dial(r2.Valkey.Endpoint())
	if err != nil {
		b.Fatal(err)
	}
	defer vk2.Close()
	for _, l := range []*faults.Link{pgLink, vkLink} {
		if _, err := l.Delay(faults.Downstream, lag, 0); err != nil {
			b.Fatal(err)
		}
	}

	// The mrec replicator, as G1 runs it (R1 -> R2 only), in this process.
	stopMrec := benchMrec(b, ctx, pools, name, schema, lag)
	defer stopMrec()

	pg := &region.LagProbe{Name: "postgres",
		Write: func(ctx context.Context, i int) error {
			_, err := pools["R1"].Exec(ctx, `INSERT INTO probe (id, at_ns) VALUES ($1, $2)`, i, time.Now().UnixNano())
			return err
		},
		Seen: func(ctx context.Context, i int) (bool, error) {
			var n int
			err := pools["R2"].QueryRow(ctx, `SELECT count(*) FROM probe WHERE id = $1`, i).Scan(&n)
			return n == 1, err
		}}
	vk := &region.LagProbe{Name: "valkey",
		Write: func(ctx context.Context, i int) error {
			return vk1.Do(ctx, vk1.B().Set().Key(name+":probe:"+strconv.Itoa(i)).Value("1").Build()).Error()
		},
		Seen: func(ctx context.Context, i int) (bool, error) {
			err := vk2.Do(ctx, vk2.B().Get().Key(name+":probe:"+strconv.Itoa(i)).Build()).Error()
			if valkey.IsValkeyNil(err) {
				return false, nil
			}
			return err == nil, err
		}}
	mr := &region.LagProbe{Name: "mrec",
		Write: func(ctx context.Context, i int) error {
			_, err := (&ledger.Ledger{Pool: pools["R1"]}).InsertPending(ctx, ledger.Payment{ID: "pay_bench_" + strconv.Itoa(i),
				Caller: "bench", Key: "K" + strconv.Itoa(i), Fingerprint: "fp", Amount: 3000, Currency: "USD", Merchant: "m1",
				Method: "pm_1", OrderID: "42", PSPKey: "pay_bench_" + strconv.Itoa(i) + ":charge"})
			return err
		},
		Seen: func(ctx context.Context, i int) (bool, error) {
			p, err := (&ledger.Ledger{Pool: pools["R2"]}).Get(ctx, "pay_bench_"+strconv.Itoa(i))
			return p != nil, err
		}}
	probes := []*region.LagProbe{pg, vk, mr}
	b.ResetTimer()
	for i := range b.N {
		for _, p := range probes {
			if err := p.Once(ctx, i); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	fmt.Printf("replication lag observed at R2, link latency %v (%.1f story s at %v per story s), %d writes each:\n",
		lag, region.Lag, storytime.Scale, b.N)
	for _, p := range probes {
		p50, p99 := mrec.Percentile(p.Lags, 50), mrec.Percentile(p.Lags, 99)
		fmt.Printf("  %-8s p50 %7.1f ms (%.2f story s)  p99 %7.1f ms (%.2f story s)  p50/link %.3f\n", p.Name,
			ms(p50), p50.Seconds()/storytime.Scale.Seconds(), ms(p99), p99.Seconds()/storytime.Scale.Seconds(), p50.Seconds()/lag.Seconds())
		b.ReportMetric(ms(p50), p.Name+"-p50-ms")
		b.ReportMetric(ms(p99), p.Name+"-p99-ms")
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func hostPortOf(b *testing.B, dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		b.Fatal(err)
	}
	return u.Host
}

// benchMrec migrates both ledgers and runs mrec's lagged pair (G1's
// replicator) for the benchmark.
func benchMrec(b *testing.B, ctx context.Context, pools map[string]*pgxpool.Pool, name, schema string, lag time.Duration) func() {
	for _, p := range pools {
		if err := ledger.Migrate(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
	stop, err := mrec.Lagged(ctx, pools["R1"], pools["R2"], benchServers.r1.Postgres.Endpoint(), benchServers.toxi, name, schema, lag,
		log.New(os.Stderr, "mrec-bench ", log.Lmicroseconds))
	if err != nil {
		b.Fatal(err)
	}
	return func() {
		if err := stop(); err != nil {
			b.Error(err)
		}
	}
}
