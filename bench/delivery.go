package bench

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/bench/deliverybench"
	"github.com/twmb/franz-go/pkg/kgo"
)

// runDelivery times events from outbox row to credit and push with every
// guard on, through the relay, worker and push processes, next to raw
// produce+consume of as many records on the same broker: the measurement
// suites/delivery's benchmark makes (package deliverybench). The ratio
// depends on the count (the raw rate grows with it), so the row names it.
func runDelivery(ctx context.Context, r *runner) error {
	n := r.size(3000, 20000)
	const rounds = 3
	var cpu string
	var cpuTotal float64
	around := func(tiers map[string]int) func() {
		groups := []procGroup{{name: "harness", pids: []int{os.Getpid()}},
			{name: "postgres", pids: []int{r.srv.stack.Postgres.PID()}, tree: true}, {name: "kafka", pids: []int{r.srv.stack.Kafka.PID()}, tree: true}}
		for name, pid := range tiers {
			groups = append(groups, procGroup{name: strings.TrimSuffix(name, "-1"), pids: []int{pid}})
		}
		c0 := sampleCPU(groups)
		return func() { cpu, cpuTotal = perOp(c0, sampleCPU(groups), rounds*n) }
	}
	// The broker's own CPU per raw record, round by round: the median is
	// the denominator, so that one noisy round does not swing the ratio.
	broker := []procGroup{{name: "kafka", pids: []int{r.srv.stack.Kafka.PID()}, tree: true}}
	var rawCPU []float64
	aroundRaw := func(int) func() {
		c0 := sampleCPU(broker)
		return func() {
			if _, us := perOp(c0, sampleCPU(broker), n); us > 0 {
				rawCPU = append(rawCPU, us)
			}
		}
	}
	res, err := deliverybench.Run(ctx, deliverybench.Config{
		PostgresDSN: r.srv.pg, Brokers: []string{r.srv.brokers()}, Events: n, Name: r.srv.name("dlv"), Rounds: rounds, Around: around,
		AroundRaw: aroundRaw,
	})
	if err != nil {
		return err
	}
	r.row(fmt.Sprintf("outbox row -> Kafka -> worker -> credit + push, %d events", n), fmt.Sprintf("%.0f events/s", res.DeliveryPerSec),
		fmt.Sprintf("%.0f raw Kafka produce+consume/s", res.RawPerSec), fmt.Sprintf("%.3f", res.Ratio))
	r.row("  rounds, path then raw (each figure is its median)", deliverybench.Rounds(res.DeliveryRounds), deliverybench.Rounds(res.RawRounds), "")
	if cpuTotal > 0 {
		// The rounds' CPU, every process that serves the path: it says
		// which tier a faster path has to come from.
		r.row("  CPU per event, µs (the path's rounds)", fmt.Sprintf("%.0f: %s", cpuTotal, cpu), "", "")
		r.row("  rate if the cores did nothing else", fmt.Sprintf("%.0f events/s", float64(runtime.NumCPU())*1e6/cpuTotal), "", "")
		r.key("delivery_cpu_us", "%.0f", cpuTotal)
		r.key("delivery_cpu_per_event_us", "%.0f", cpuTotal)
		r.cpuNextTo("  CPU per event next to the broker's own per raw record, µs", "harness, postgres, kafka, relay, worker, push",
			cpuTotal, "kafka", rawCPU, "kafka_raw_cpu_us", "delivery_cpu_ratio")
	}
	r.key("delivery_per_s", "%.0f", res.DeliveryPerSec)
	r.key("raw_kafka_per_s", "%.0f", res.RawPerSec)
	r.key("delivery_ratio", "%.3f", res.Ratio)
	r.key("delivery_events", "%d", n)
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
