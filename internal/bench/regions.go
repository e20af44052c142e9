package bench

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/valkey-io/valkey-go"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/targets/keystore"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mrec"
	"github.com/idemcheck/idemcheck/targets/refstack"
	"github.com/idemcheck/idemcheck/targets/region"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

// lagProbe measures, one write at a time, the time from a write's return in
// R1 to its first sight in R2.
type lagProbe struct {
	name  string
	write func(ctx context.Context, i int) error
	seen  func(ctx context.Context, i int) (bool, error)
	lags  []time.Duration
}

func (p *lagProbe) once(ctx context.Context, i int) error {
	if err := p.write(ctx, i); err != nil {
		return fmt.Errorf("%s: write %d: %w", p.name, i, err)
	}
	t0 := time.Now()
	for {
		ok, err := p.seen(ctx, i)
		if err != nil {
			return fmt.Errorf("%s: read %d: %w", p.name, i, err)
		}
		if ok {
			p.lags = append(p.lags, time.Since(t0))
			return nil
		}
		if time.Since(t0) > 30*time.Second {
			return fmt.Errorf("%s: write %d not seen in R2 after 30s", p.name, i)
		}
		time.Sleep(500 * time.Microsecond) // the probe's read cadence: its resolution
	}
}

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
	stopMrec, err := startMrec(ctx, r, pools, name, schema, lag)
	if err != nil {
		return err
	}
	defer stopMrec()
	lg := func(k string) *ledger.Ledger { return &ledger.Ledger{Pool: pools[k]} }
	probes := []*lagProbe{
		{name: "postgres logical replication (G2)",
			write: func(ctx context.Context, i int) error {
				_, err := pools["R1"].Exec(ctx, `INSERT INTO probe (id, at_ns) VALUES ($1, $2)`, i, time.Now().UnixNano())
				return err
			},
			seen: func(ctx context.Context, i int) (bool, error) {
				var c int
				err := pools["R2"].QueryRow(ctx, `SELECT count(*) FROM probe WHERE id = $1`, i).Scan(&c)
				return c == 1, err
			}},
		{name: "valkey replication (G2)",
			write: func(ctx context.Context, i int) error {
				return vk1.Do(ctx, vk1.B().Set().Key(name+":probe:"+strconv.Itoa(i)).Value("1").Build()).Error()
			},
			seen: func(ctx context.Context, i int) (bool, error) {
				err := vk2.Do(ctx, vk2.B().Get().Key(name+":probe:"+strconv.Itoa(i)).Build()).Error()
				if valkey.IsValkeyNil(err) {
					return false, nil
				}
				return err == nil, err
			}},
		{name: "mrec replicator (G1)",
			write: func(ctx context.Context, i int) error {
				id := "pay_bench_" + strconv.Itoa(i)
				_, err := lg("R1").InsertPending(ctx, ledger.Payment{ID: id, Caller: "bench", Key: "K" + strconv.Itoa(i), Fingerprint: "fp",
					Amount: 3000, Currency: "USD", Merchant: "m1", Method: "pm_1", OrderID: "42", PSPKey: id + ":charge"})
				return err
			},
			seen: func(ctx context.Context, i int) (bool, error) {
				p, err := lg("R2").Get(ctx, "pay_bench_"+strconv.Itoa(i))
				return p != nil, err
			}},
	}
	for i := range n {
		for _, p := range probes {
			if err := p.once(ctx, i); err != nil {
				return err
			}
		}
	}
	keys := []string{"region_pg_lag_p99_ms", "region_valkey_lag_p99_ms", "region_mrec_lag_p99_ms"}
	for k, p := range probes {
		p50, p99 := mrec.Percentile(p.lags, 50), mrec.Percentile(p.lags, 99)
		r.row(fmt.Sprintf("Region lag R1 -> R2, %s, %d writes", p.name, n), fmt.Sprintf("p50 %.1f ms p99 %.1f ms", ms(p50), ms(p99)),
			fmt.Sprintf("link latency %.0f ms (%.1f story s)", ms(lag), region.Lag), fmt.Sprintf("%.2f", p50.Seconds()/lag.Seconds()))
		r.key(keys[k], "%.1f", ms(p99))
	}
	r.key("region_link_ms", "%.0f", ms(lag))
	return nil
}

// startMrec runs one mrec sender (R1) and receiver (R2) in this process, the
// sender's items crossing a link with the lag, as G1 runs them.
func startMrec(ctx context.Context, r *runner, pools map[string]*pgxpool.Pool, name, schema string, lag time.Duration) (func(), error) {
	slot := name + "_mrec"
	if _, err := pools["R1"].Exec(ctx, `SELECT pg_create_logical_replication_slot($1, 'test_decoding')`, slot); err != nil {
		return nil, err
	}
	dropSlot := func() {
		_ = region.DropSlot(context.Background(), r.srv.stack.Postgres.Endpoint(), slot, 30*time.Second)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		dropSlot()
		return nil, err
	}
	link, err := r.srv.toxi.Link(name+"-mrec", ln.Addr().String())
	if err == nil {
		_, err = link.Delay(faults.Upstream, lag, 0)
	}
	if err != nil {
		ln.Close()
		dropSlot()
		return nil, err
	}
	lg := log.New(r.log, "mrec-bench ", log.Lmicroseconds)
	rctx, cancel := context.WithCancel(ctx)
	rcv := &mrec.Receiver{Pool: pools["R2"], Log: lg}
	go rcv.Serve(rctx, ln)
	snd := &mrec.Sender{Pool: pools["R1"], Region: "R1", Schema: schema, Slot: slot, Peer: link.Addr(), Tick: 10 * time.Millisecond, Log: lg}
	done := make(chan struct{})
	go func() {
		defer close(done)
		snd.Run(rctx)
	}()
	return func() {
		cancel()
		<-done
		_ = link.Heal()
		dropSlot()
	}, nil
}
