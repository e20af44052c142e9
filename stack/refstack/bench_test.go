package refstack_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/stack/phone"
	"github.com/idemcheck/idemcheck/stack/refstack"
	"github.com/idemcheck/idemcheck/stack/services"
	_ "github.com/idemcheck/idemcheck/targets/api" // tier
	_ "github.com/idemcheck/idemcheck/targets/lb"  // tier
	"github.com/idemcheck/idemcheck/targets/tier"
)

func TestMain(m *testing.M) {
	tier.Dispatch()
	os.Exit(m.Run())
}

const (
	clients  = 64 // concurrent phones
	apiConns = 16 // Postgres connections per API server
)

// BenchmarkReference drives the reference stack with every guard on, through
// the LB, against real Postgres and Valkey: b.N new payments, then b.N
// replays of them, then b.N raw single-row INSERT commits on a pool with the
// same connection count as the API servers together.
func BenchmarkReference(b *testing.B) {
	ctx := context.Background()
	svc, err := services.Start(ctx, services.Options{Postgres: true, Valkey: true, Log: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Stop(ctx) //nolint:errcheck
	psp, err := fakepsp.Start(fakepsp.Config{RateLimits: fakepsp.RateLimits{Disabled: true}})
	if err != nil {
		b.Fatal(err)
	}
	defer psp.Close()
	st, err := refstack.Start(ctx, refstack.Config{PostgresDSN: svc.Postgres.Endpoint(), ValkeyAddr: svc.Valkey.Endpoint(),
		PSPURL: psp.URL(), PSPKey: psp.SecretKey(), NoResolver: true, NoWebhook: true, APIConns: apiConns})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Stop()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients * 2}, Timeout: 30 * time.Second}
	body := phone.Story().Body()
	send := func(key string) (int, error) {
		req, _ := http.NewRequest(http.MethodPost, st.URL+"/payments", bytes.NewReader(body))
		req.GetBody = nil // never replayed by net/http
		req.Header.Set("Authorization", "Bearer bench")
		req.Header.Set("Idempotency-Key", key)
		resp, err := hc.Do(req)
		if err != nil {
			return 0, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	run := func(n int, f func(i int) error) (time.Duration, []time.Duration, error) {
		return runWith(clients, n, f)
	}
	want := func(code int) func(string) error {
		return func(key string) error {
			c, err := send(key)
			if err != nil {
				return err
			}
			if c != code {
				return fmt.Errorf("key %s: status %d, want %d", key, c, code)
			}
			return nil
		}
	}
	gen := b.N
	prefix := fmt.Sprintf("b%d-", time.Now().UnixNano())
	b.ResetTimer()
	elNew, _, err := run(gen, func(i int) error { return want(200)(fmt.Sprintf("%s%d", prefix, i)) })
	if err != nil {
		b.Fatal(err)
	}
	elRep, latSat, err := run(gen, func(i int) error { return want(200)(fmt.Sprintf("%s%d", prefix, i)) })
	if err != nil {
		b.Fatal(err)
	}
	// Replay latency at light load: what one phone's retry waits.
	_, lat, err := runWith(4, gen, func(i int) error { return want(200)(fmt.Sprintf("%s%d", prefix, i)) })
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if got := len(psp.Charges()); got != gen {
		b.Fatalf("%d charges for %d payments", got, gen)
	}
	pool, err := pgxpool.New(ctx, svc.Postgres.Endpoint()+"&pool_max_conns="+fmt.Sprint(2*apiConns))
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS bench_insert (id bigserial PRIMARY KEY, k text NOT NULL UNIQUE, amount bigint)`); err != nil {
		b.Fatal(err)
	}
	elIns, _, err := run(gen, func(i int) error {
		_, err := pool.Exec(ctx, `INSERT INTO bench_insert (k, amount) VALUES ($1, 3000)`, fmt.Sprintf("%s%d", prefix, i))
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	newRate := float64(gen) / elNew.Seconds()
	insRate := float64(gen) / elIns.Seconds()
	b.ReportMetric(newRate, "payments/s")
	b.ReportMetric(float64(gen)/elRep.Seconds(), "replays/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "replay-p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "replay-p99-ms")
	b.ReportMetric(float64(latSat[len(latSat)*99/100].Microseconds())/1000, "replay-p99-ms@64")
	b.ReportMetric(insRate, "pg-inserts/s")
	b.ReportMetric(newRate/insRate, "payments/insert-ratio")
	b.ReportMetric(0, "ns/op")
}

// runWith runs f(0..n-1) on workers goroutines and returns the elapsed time
// and the sorted per-call latencies.
func runWith(workers, n int, f func(i int) error) (time.Duration, []time.Duration, error) {
	var next atomic.Int64
	lat := make([]time.Duration, n)
	var wg sync.WaitGroup
	var firstErr atomic.Value
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				t := time.Now()
				if err := f(i); err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
				lat[i] = time.Since(t)
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	if e, _ := firstErr.Load().(error); e != nil {
		return el, nil, e
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return el, lat, nil
}
