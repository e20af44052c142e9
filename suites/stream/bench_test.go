package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/launch"
	"github.com/idemcheck/idemcheck/suites/kit"
	"github.com/idemcheck/idemcheck/targets/connector"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/streamjob"
)

// The benchmarks start their own servers (go test -bench skips the suite's
// BeforeSuite) once per process; TestMain stops them.
var (
	benchOnce sync.Once
	benchSrv  *kit.Env
	benchErr  error
)

func benchServers(b *testing.B) *kit.Env {
	benchOnce.Do(func() { benchSrv, benchErr = kit.StartServers(context.Background(), need) })
	if benchErr != nil {
		b.Fatalf("servers: %v", benchErr)
	}
	return benchSrv
}

func stopBenchServers() {
	if benchSrv != nil {
		_ = benchSrv.Stop(context.Background())
	}
}

// benchWorld is a database and a topic for one benchmark run.
type benchWorld struct {
	s                *kit.Env
	name, dsn, topic string
	pool             *pgxpool.Pool
	dir              string
	procs            []*faults.Process
}

func newBenchWorld(b *testing.B, s *kit.Env, tag string) *benchWorld {
	ctx := context.Background()
	w := &benchWorld{s: s, name: fmt.Sprintf("b%d_%s", os.Getpid(), tag), topic: fmt.Sprintf("bench-%d-%s", os.Getpid(), tag)}
	var err error
	if w.dir, err = os.MkdirTemp("", "idemcheck-stream-bench-"); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Admin.Exec(ctx, "CREATE DATABASE "+w.name); err != nil {
		b.Fatal(err)
	}
	u, _ := url.Parse(s.Postgres)
	u.Path = "/" + w.name
	w.dsn = u.String()
	if w.pool, err = pgxpool.New(ctx, w.dsn); err != nil {
		b.Fatal(err)
	}
	if err := ledger.Migrate(ctx, w.pool); err != nil {
		b.Fatal(err)
	}
	if err := streamjob.Migrate(ctx, w.pool); err != nil {
		b.Fatal(err)
	}
	if _, err := s.KafkaAdmin.CreateTopic(ctx, 1, 1, nil, w.topic); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		for _, p := range w.procs {
			_ = p.Stop(5 * time.Second)
		}
		w.pool.Close()
		_, _ = s.Admin.Exec(ctx, `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1`, slotPrefix+w.name)
		_, _ = s.Admin.Exec(ctx, "DROP DATABASE IF EXISTS "+w.name+" WITH (FORCE)")
		_, _ = s.KafkaAdmin.DeleteTopic(ctx, w.topic)
		_ = os.RemoveAll(w.dir)
	})
	return w
}

func (w *benchWorld) start(b *testing.B, name, tierName string, args ...string) {
	_, err := launch.Start(context.Background(), launch.Spec{Dir: w.dir, Name: name, Tier: tierName, Args: args,
		Track: func(p *faults.Process) { w.procs = append(w.procs, p) }})
	if err != nil {
		b.Fatal(err)
	}
}

// insertSucceeded commits n SUCCEEDED payments over 100 merchants in one
// statement: n changes on the stream at once.
func (w *benchWorld) insertSucceeded(b *testing.B, n int) {
	_, err := w.pool.Exec(context.Background(), `INSERT INTO payments (payment_id, caller_id, client_key, amount, currency, merchant, state)
 SELECT 'pay_' || i, 'u' || i, 'K' || i, 10, 'USD', 'm' || (i % 100), 'SUCCEEDED' FROM generate_series(1, $1) AS i`, n)
	if err != nil {
		b.Fatal(err)
	}
}

func (w *benchWorld) sinkSum() int64 {
	var s int64
	_ = w.pool.QueryRow(context.Background(), `SELECT coalesce(sum(total), 0) FROM stream_sink`).Scan(&s)
	return s
}

const benchEvents = 5000

// BenchmarkStreamPipeline prints events/s from the ledger's commit through
// the connector (lag 0), the topic and the job to the sink, next to raw
// Kafka produce+consume of as many records of the same size on the same
// broker, and their ratio.
func BenchmarkStreamPipeline(b *testing.B) {
	s := benchServers(b)
	var pipe, raw float64
	for i := 0; i < b.N; i++ {
		w := newBenchWorld(b, s, fmt.Sprintf("p%d", i))
		w.start(b, "connector", connector.TierName, "-postgres", w.dsn, "-brokers", s.Brokers, "-topic", w.topic,
			"-slot", slotPrefix+w.name, "-lag", "0")
		w.start(b, "job", streamjob.TierName, "-name", "job", "-postgres", w.dsn, "-brokers", s.Brokers, "-topic", w.topic)
		t0 := time.Now()
		w.insertSucceeded(b, benchEvents)
		for w.sinkSum() != 10*benchEvents {
			if time.Since(t0) > 5*time.Minute {
				b.Fatalf("sink at %d of %d after 5 min", w.sinkSum(), 10*benchEvents)
			}
			time.Sleep(5 * time.Millisecond)
		}
		pipe += benchEvents / time.Since(t0).Seconds()
		raw += rawKafka(b, s, w.topic+"-raw", benchEvents)
	}
	b.ReportMetric(pipe/float64(b.N), "pipeline-events/s")
	b.ReportMetric(raw/float64(b.N), "kafka-events/s")
	b.ReportMetric(pipe/raw, "pipeline/kafka")
}

// rawKafka produces n change-sized records and consumes them back.
func rawKafka(b *testing.B, s *kit.Env, topic string, n int) float64 {
	ctx := context.Background()
	if _, err := s.KafkaAdmin.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
		b.Fatal(err)
	}
	defer func() { _, _ = s.KafkaAdmin.DeleteTopic(ctx, topic) }()
	v, _ := json.Marshal(connector.Event{Kind: connector.KindChange, EventID: "pay_1234:SUCCEEDED", PaymentID: "pay_1234",
		Merchant: "m12", State: "SUCCEEDED", Amount: 10, Day: "2026-12-01", EventTime: time.Now().UnixNano(), LSN: "0/1A2B3C4D"})
	p, err := kgo.NewClient(kgo.SeedBrokers(s.Brokers), kgo.DefaultProduceTopic(topic), kgo.ProducerLinger(0))
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	c, err := kgo.NewClient(kgo.SeedBrokers(s.Brokers), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	t0 := time.Now()
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = &kgo.Record{Key: []byte("pay_1234"), Value: v}
	}
	if err := p.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		b.Fatal(err)
	}
	for got := 0; got < n; {
		f := c.PollFetches(ctx)
		if err := f.Err0(); err != nil {
			b.Fatal(err)
		}
		got += f.NumRecords()
	}
	return float64(n) / time.Since(t0).Seconds()
}

// BenchmarkStreamRestore prints the restore time for a state of 10,000
// keys and 10,000 seen ids: load of the checkpoint, the full flush (rewrite
// every key, scan the tag index, delete what state lacks), and the replay of
// 5,000 changes after the checkpoint's offset.
func BenchmarkStreamRestore(b *testing.B) {
	const keys = 10000
	s := benchServers(b)
	ctx := context.Background()
	var load, replay float64
	for i := 0; i < b.N; i++ {
		w := newBenchWorld(b, s, fmt.Sprintf("r%d", i))
		// The topic: benchEvents changes the replay must read.
		w.start(b, "connector", connector.TierName, "-postgres", w.dsn, "-brokers", s.Brokers, "-topic", w.topic,
			"-slot", slotPrefix+w.name, "-lag", "0")
		w.insertSucceeded(b, benchEvents)
		for {
			ends, err := s.KafkaAdmin.ListEndOffsets(ctx, w.topic)
			if err != nil {
				b.Fatal(err)
			}
			if o, _ := ends.Lookup(w.topic, 0); o.Offset >= benchEvents {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		c := streamjob.Checkpoint{ID: 7, Totals: map[streamjob.Key]int64{}, Seen: map[string]int64{}}
		for k := 0; k < keys; k++ {
			c.Totals[streamjob.Key{Merchant: fmt.Sprintf("x%d", k), Day: "2026-12-01"}] = int64(k)
			c.Seen[fmt.Sprintf("old_%d:SUCCEEDED", k)] = time.Now().UnixNano()
		}
		if err := streamjob.Save(ctx, w.pool, "job", c); err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		j, err := streamjob.New(ctx, streamjob.Config{Name: "job", Postgres: w.dsn, Brokers: []string{s.Brokers}, Topic: w.topic,
			Version: 2, Horizon: time.Hour, Log: log.New(io.Discard, "", 0)})
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		rctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- j.Run(rctx) }()
		for j.Status().Counted < benchEvents {
			time.Sleep(2 * time.Millisecond)
		}
		t2 := time.Now()
		cancel()
		<-done
		j.Close()
		load += t1.Sub(t0).Seconds() * 1000
		replay += t2.Sub(t1).Seconds() * 1000
	}
	b.ReportMetric(load/float64(b.N), "load+flush-ms")
	b.ReportMetric(replay/float64(b.N), "replay-ms")
	b.ReportMetric(float64(keys), "state-keys")
}
