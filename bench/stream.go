package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemcheck/idemcheck/targets/connector"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/streamjob"
)

// runStream times changes from the ledger's commit through the connector
// (lag 0), the topic and the stream job to the sink, as the suites/stream
// benchmark does, next to raw Kafka produce+consume of as many change-sized
// records on the same broker.
func runStream(ctx context.Context, r *runner) error {
	n := r.size(5000, 20000)
	name := r.srv.name("str")
	dsn, drop, err := r.srv.database(ctx, name)
	if err != nil {
		return err
	}
	defer drop()
	slot := "idemcheck_" + name
	// The slot goes before the database (a database with a slot cannot be
	// dropped), after the connector that holds it has stopped.
	defer func() {
		_, _ = r.srv.admin.Exec(context.Background(), `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1`, slot)
	}()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := ledger.Migrate(ctx, pool); err != nil {
		return err
	}
	if err := streamjob.Migrate(ctx, pool); err != nil {
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
	if _, err := ps.start(ctx, "connector", connector.TierName, "-postgres", dsn, "-brokers", r.srv.brokers(), "-topic", topic,
		"-slot", slot, "-lag", "0"); err != nil {
		return err
	}
	if _, err := ps.start(ctx, "job", streamjob.TierName, "-name", "job", "-postgres", dsn, "-brokers", r.srv.brokers(), "-topic", topic); err != nil {
		return err
	}
	t0 := time.Now()
	// n SUCCEEDED payments over 100 merchants in one statement: n changes
	// on the stream at once.
	if _, err := pool.Exec(ctx, `INSERT INTO payments (payment_id, caller_id, client_key, amount, currency, merchant, state)
 SELECT 'pay_' || i, 'u' || i, 'K' || i, 10, 'USD', 'm' || (i % 100), 'SUCCEEDED' FROM generate_series(1, $1) AS i`, n); err != nil {
		return err
	}
	want := int64(10 * n)
	for {
		var sum int64
		if err := pool.QueryRow(ctx, `SELECT coalesce(sum(total), 0) FROM stream_sink`).Scan(&sum); err != nil {
			return err
		}
		if sum > want {
			return fmt.Errorf("sink total %d, want %d: a change counted twice", sum, want)
		}
		if sum == want {
			break
		}
		if time.Since(t0) > 3*time.Minute || ctx.Err() != nil {
			return fmt.Errorf("sink at %d of %d after %v", sum, want, time.Since(t0).Round(time.Second))
		}
		time.Sleep(5 * time.Millisecond) // polling cadence of the measurement, not a race
	}
	pipe := time.Since(t0)
	v, _ := json.Marshal(connector.Event{Kind: connector.KindChange, EventID: "pay_1234:SUCCEEDED", PaymentID: "pay_1234",
		Merchant: "m12", State: "SUCCEEDED", Amount: 10, Day: "2026-12-01", EventTime: time.Now().UnixNano(), LSN: "0/1A2B3C4D"})
	raw, err := rawKafka(ctx, r, topic+"-raw", n, func(int) []byte { return v })
	if err != nil {
		return fmt.Errorf("raw kafka: %w", err)
	}
	rate, rawRate := float64(n)/pipe.Seconds(), float64(n)/raw.Seconds()
	r.row(fmt.Sprintf("stream: commit -> connector -> Kafka -> job -> sink, %d changes", n), fmt.Sprintf("%.0f changes/s", rate),
		fmt.Sprintf("%.0f raw Kafka produce+consume/s", rawRate), fmt.Sprintf("%.3f", rate/rawRate))
	r.key("stream_per_s", "%.0f", rate)
	r.key("stream_ratio", "%.3f", rate/rawRate)
	return nil
}
