package bench

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/push"
	"github.com/idemcheck/idemcheck/targets/relay"
	"github.com/idemcheck/idemcheck/targets/worker"
)

// runDelivery times events from outbox row to credit with every guard on
// (inbox, notification record and push, manual offset commits,
// read_committed) through the relay, worker and push processes, as the
// suites/delivery benchmark does, next to raw produce+consume of as many
// records on the same broker.
func runDelivery(ctx context.Context, r *runner) error {
	n := r.size(3000, 10000)
	name := r.srv.name("dlv")
	dsn, drop, err := r.srv.database(ctx, name)
	if err != nil {
		return err
	}
	defer drop()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := ledger.Migrate(ctx, pool); err != nil {
		return err
	}
	if err := worker.Migrate(ctx, pool); err != nil {
		return err
	}
	topic := "bench-" + name
	del, err := r.srv.topic(ctx, topic)
	if err != nil {
		return err
	}
	defer del()
	ps, err := newProcs()
	if err != nil {
		return err
	}
	defer ps.stop()
	pa, err := ps.start(ctx, "push", push.TierName)
	if err != nil {
		return err
	}
	if _, err := ps.start(ctx, "worker-1", worker.TierName, "-name", "worker-1", "-postgres", dsn, "-brokers", r.srv.brokers(),
		"-topic", topic, "-group", "g-"+name, "-push", pa["push"]); err != nil {
		return err
	}
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
		return err
	}
	t0 := time.Now()
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"outbox"}, []string{"event_id", "payment_id", "merchant", "amount", "currency"}, pgx.CopyFromRows(outbox)); err != nil {
		return err
	}
	if _, err := ps.start(ctx, "relay-1", relay.TierName, "-postgres", dsn, "-brokers", r.srv.brokers(), "-topic", topic); err != nil {
		return err
	}
	deadline := time.Now().Add(3*time.Minute + time.Duration(n)*5*time.Millisecond)
	for {
		var credited int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM credits`).Scan(&credited); err != nil {
			return err
		}
		if credited > n {
			return fmt.Errorf("%d credits for %d events: a double credit", credited, n)
		}
		if credited == n {
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("only %d of %d events credited by the deadline", credited, n)
		}
		time.Sleep(5 * time.Millisecond) // polling cadence of the measurement, not a race
	}
	e2e := time.Since(t0)
	raw, err := rawKafka(ctx, r, "raw-"+name, n, func(i int) []byte { return []byte(fmt.Sprintf(`{"event_id":"raw-%d"}`, i)) })
	if err != nil {
		return fmt.Errorf("raw kafka: %w", err)
	}
	rate, rawRate := float64(n)/e2e.Seconds(), float64(n)/raw.Seconds()
	r.row(fmt.Sprintf("outbox row -> Kafka -> worker -> credit + push, %d events", n), fmt.Sprintf("%.0f events/s", rate),
		fmt.Sprintf("%.0f raw Kafka produce+consume/s", rawRate), fmt.Sprintf("%.3f", rate/rawRate))
	r.key("delivery_per_s", "%.0f", rate)
	r.key("raw_kafka_per_s", "%.0f", rawRate)
	r.key("delivery_ratio", "%.3f", rate/rawRate)
	return nil
}

// rawKafka produces n records (value(i)) and consumes them back
// (read_committed) with one client each, as fast as the broker allows.
func rawKafka(ctx context.Context, r *runner, topic string, n int, value func(i int) []byte) (time.Duration, error) {
	del, err := r.srv.topic(ctx, topic)
	if err != nil {
		return 0, err
	}
	defer del()
	prod, err := kgo.NewClient(kgo.SeedBrokers(r.srv.brokers()), kgo.DefaultProduceTopic(topic))
	if err != nil {
		return 0, err
	}
	defer prod.Close()
	cons, err := kgo.NewClient(kgo.SeedBrokers(r.srv.brokers()), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}))
	if err != nil {
		return 0, err
	}
	defer cons.Close()
	t0 := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var perr error
	for i := range n {
		wg.Add(1)
		v := value(i)
		prod.Produce(ctx, &kgo.Record{Key: v, Value: v}, func(_ *kgo.Record, err error) {
			if err != nil {
				mu.Lock()
				perr = err
				mu.Unlock()
			}
			wg.Done()
		})
	}
	pctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for got := 0; got < n; {
		fs := cons.PollFetches(pctx)
		if pctx.Err() != nil {
			return 0, fmt.Errorf("consumed %d of %d: %v", got, n, pctx.Err())
		}
		got += fs.NumRecords()
	}
	wg.Wait()
	if perr != nil {
		return 0, perr
	}
	return time.Since(t0), nil
}
