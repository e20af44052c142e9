package deliverybench

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// rawKafka produces n small records and consumes them back, one client each,
// as fast as the broker allows, and returns the elapsed time: the reference
// the delivery path is measured against. The consumer reads read_committed,
// as the worker does.
func rawKafka(ctx context.Context, adm *kadm.Client, brokers []string, topic string, n int) (time.Duration, error) {
	e := &env{adm: adm}
	if err := e.createTopic(ctx, topic); err != nil {
		return 0, err
	}
	defer func() { _, _ = adm.DeleteTopics(context.WithoutCancel(ctx), topic) }()
	prod, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		return 0, err
	}
	defer prod.Close()
	cons, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}))
	if err != nil {
		return 0, err
	}
	defer cons.Close()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	t0 := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var perr error
	for i := range n {
		wg.Add(1)
		key := fmt.Sprintf("raw-%d", i)
		v := []byte(`{"event_id":"` + key + `"}`)
		prod.Produce(ctx, &kgo.Record{Key: []byte(key), Value: v}, func(_ *kgo.Record, err error) {
			if err != nil {
				mu.Lock()
				perr = err
				mu.Unlock()
			}
			wg.Done()
		})
	}
	got := 0
	for got < n {
		fs := cons.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return 0, fmt.Errorf("deliverybench: raw consume: %d of %d records: %w", got, n, err)
		}
		got += fs.NumRecords()
	}
	took := time.Since(t0)
	wg.Wait()
	if perr != nil {
		return 0, fmt.Errorf("deliverybench: raw produce: %w", perr)
	}
	return took, nil
}
