package delivery

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/suites/kit"
	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/push"
	"github.com/idemcheck/idemcheck/targets/relay"
	"github.com/idemcheck/idemcheck/targets/tier"
	"github.com/idemcheck/idemcheck/targets/worker"
)

var (
	benchOnce sync.Once
	benchSrv  *kit.Env
	benchErr  error
	benchSeq  int
)

// benchServers starts the servers once per test binary run; TestMain stops
// them after every benchmark has run.
func benchServers(b *testing.B) *kit.Env {
	benchOnce.Do(func() { benchSrv, benchErr = kit.StartServers(context.Background(), benchNeed()) })
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchSrv
}

func stopBenchServers() {
	if benchSrv != nil {
		_ = benchSrv.Stop(context.Background())
	}
}

// BenchmarkEndToEnd measures events per second from outbox row to credit with
// every guard on (inbox, notification record and push, manual offset commits,
// read_committed), through the relay, worker and push processes, and prints
// it next to the raw produce-and-consume rate of the same Kafka in the same
// run. One op is one event. Run with a fixed count, e.g. -benchtime=2000x.
func BenchmarkEndToEnd(b *testing.B) {
	s := benchServers(b)
	ctx := context.Background()
	n := b.N
	benchSeq++
	name := fmt.Sprintf("bench%d_%d", os.Getpid(), benchSeq)
	dir := b.TempDir()

	pool := benchDatabase(b, s, name)
	topic := "bench-" + name
	mustTopic(b, s, topic)
	start := func(proc, tierName string, args ...string) map[string]string {
		addrFile := filepath.Join(dir, proc+".addr")
		cmd, err := tier.Command(tierName, append(args, "-addr-file", addrFile)...)
		if err != nil {
			b.Fatal(err)
		}
		p, err := faults.StartProcess(proc, cmd, dir)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = p.Stop(5 * time.Second) })
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		addrs, err := failpoint.ReadAddrs(rctx, addrFile)
		if err != nil {
			b.Fatal(err)
		}
		return addrs
	}
	dsn := benchDSN(b, s, name)
	pushURL := start("push", push.TierName)["push"]
	start("worker-1", worker.TierName, "-name", "worker-1", "-postgres", dsn, "-brokers", s.Brokers, "-topic", topic,
		"-group", "g-"+name, "-push", pushURL)

	// The payments exist before the clock starts; the outbox rows are
	// committed at once, as a burst of successes would commit them.
	payments := make([][]any, n)
	outbox := make([][]any, n)
	for i := range n {
		id := fmt.Sprintf("pay_b%d", i)
		payments[i] = []any{id, "u1", fmt.Sprintf("K%d", i), int64(100), "USD", "m1", ledger.Succeeded}
		outbox[i] = []any{id + ":SUCCEEDED", id, "m1", int64(100), "USD"}
	}
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"payments"}, []string{"payment_id", "caller_id", "client_key", "amount", "currency", "merchant", "state"}, pgx.CopyFromRows(payments)); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	t0 := time.Now()
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"outbox"}, []string{"event_id", "payment_id", "merchant", "amount", "currency"}, pgx.CopyFromRows(outbox)); err != nil {
		b.Fatal(err)
	}
	start("relay-1", relay.TierName, "-postgres", dsn, "-brokers", s.Brokers, "-topic", topic)
	deadline := time.Now().Add(5*time.Minute + time.Duration(n)*10*time.Millisecond)
	for {
		var credited int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM credits`).Scan(&credited); err != nil {
			b.Fatal(err)
		}
		if credited >= n {
			if credited != n {
				b.Fatalf("%d credits for %d events", credited, n)
			}
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("only %d of %d events credited by the deadline", credited, n)
		}
		time.Sleep(5 * time.Millisecond) // polling cadence of the measurement, not a race
	}
	e2e := time.Since(t0)
	b.StopTimer()

	raw := rawKafka(b, s, "raw-"+name, n)
	e2eRate := float64(n) / e2e.Seconds()
	rawRate := float64(n) / raw.Seconds()
	b.ReportMetric(e2eRate, "events/s")
	b.ReportMetric(rawRate, "raw-kafka-events/s")
	b.ReportMetric(e2eRate/rawRate, "e2e/raw")
}

// rawKafka produces n small records and consumes them back with one client
// each, as fast as the same broker allows, and returns the elapsed time.
func rawKafka(b *testing.B, s *kit.Env, topic string, n int) time.Duration {
	ctx := context.Background()
	mustTopic(b, s, topic)
	prod, err := kgo.NewClient(kgo.SeedBrokers(s.Brokers), kgo.DefaultProduceTopic(topic))
	if err != nil {
		b.Fatal(err)
	}
	defer prod.Close()
	cons, err := kgo.NewClient(kgo.SeedBrokers(s.Brokers), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}))
	if err != nil {
		b.Fatal(err)
	}
	defer cons.Close()
	t0 := time.Now()
	var wg sync.WaitGroup
	var perr error
	var mu sync.Mutex
	for i := range n {
		wg.Add(1)
		v := []byte(fmt.Sprintf(`{"event_id":"raw-%d"}`, i))
		prod.Produce(ctx, &kgo.Record{Key: v[13 : len(v)-2], Value: v}, func(_ *kgo.Record, err error) {
			if err != nil {
				mu.Lock()
				perr = err
				mu.Unlock()
			}
			wg.Done()
		})
	}
	got := 0
	pctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for got < n {
		fs := cons.PollFetches(pctx)
		if pctx.Err() != nil {
			b.Fatalf("raw consume: %d of %d: %v", got, n, pctx.Err())
		}
		got += fs.NumRecords()
	}
	wg.Wait()
	if perr != nil {
		b.Fatal(perr)
	}
	return time.Since(t0)
}

func benchDatabase(b *testing.B, s *kit.Env, name string) *pgxpool.Pool {
	ctx := context.Background()
	if _, err := s.Admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		b.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, benchDSN(b, s, name))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		pool.Close()
		_, _ = s.Admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	if err := ledger.Migrate(ctx, pool); err != nil {
		b.Fatal(err)
	}
	if err := worker.Migrate(ctx, pool); err != nil {
		b.Fatal(err)
	}
	return pool
}

func mustTopic(b *testing.B, s *kit.Env, topic string) {
	resp, err := s.KafkaAdmin.CreateTopic(context.Background(), 1, 1, nil, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _, _ = s.KafkaAdmin.DeleteTopic(context.Background(), topic) })
}

// benchNeed is the suite's servers, their start-up lines on stderr.
func benchNeed() kit.Need {
	n := need
	n.Log = os.Stderr
	return n
}

func benchDSN(b *testing.B, s *kit.Env, db string) string {
	dsn, err := kit.WithDatabase(s.Postgres, db)
	if err != nil {
		b.Fatal(err)
	}
	return dsn
}
