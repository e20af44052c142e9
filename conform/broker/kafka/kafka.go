// Package kafka is the Kafka broker of the queue checks: the run's own
// topic and consumer group, on the config's brokers or on a Kafka started
// for the run.
package kafka

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/stack/services"
)

// Caps: Kafka has ordered partitions, a group that rebalances and lists
// its members; no dedup window (an idempotent producer dedups only its
// own retries of one batch), no visibility timeout, no dead-letter topic.
const Caps = broker.Partitions | broker.Rebalance | broker.Members

func init() { broker.Register("kafka", Caps, Open, Validate) }

// Kafka is the run's topic and group on one cluster.
type Kafka struct {
	where broker.Endpoint
	lanes int
	// Client produces to explicit partitions.
	Client *kgo.Client
	Adm    *kadm.Client
	log    io.Writer
	undo   []func()
}

// Open readies the run's topic (and a Kafka, when the config names none).
func Open(ctx context.Context, s broker.Setup) (broker.Broker, error) {
	k := &Kafka{lanes: s.Lanes, log: s.Log}
	b, err := k.open(ctx, s)
	if err != nil {
		k.Close()
		return nil, err
	}
	return b, nil
}

func (k *Kafka) open(ctx context.Context, s broker.Setup) (*Kafka, error) {
	brokers := s.Addrs
	if len(brokers) == 0 {
		st, err := services.Start(ctx, services.Options{Kafka: true, Log: s.Log})
		if err != nil {
			return nil, fmt.Errorf("start a Kafka for the run (or set consumer.brokers): %v", err)
		}
		k.undo = append(k.undo, func() { _ = st.Stop(context.Background()) })
		brokers = strings.Split(st.Kafka.Endpoint(), ",")
	}
	topic, group := strings.ReplaceAll(s.QueueName, "{{run}}", s.Run), strings.ReplaceAll(s.GroupName, "{{run}}", s.Run)
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(0), kgo.RetryTimeout(10*time.Second))
	if err != nil {
		return nil, err
	}
	k.undo = append(k.undo, cl.Close)
	k.Client, k.Adm = cl, kadm.NewClient(cl)
	if len(s.Addrs) > 0 {
		sweepStaleQueues(ctx, k.Adm, s.QueueName, s.GroupName, time.Now(), s.Log)
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// -1: the cluster's default replication factor.
	if _, err := k.Adm.CreateTopic(cctx, int32(s.Lanes), -1, nil, topic); err != nil {
		return nil, fmt.Errorf("create topic %s on %s: %v", topic, strings.Join(brokers, ","), err)
	}
	k.undo = append(k.undo, func() { Drop(k.Adm, topic, group, s.Log) })
	k.where = broker.Endpoint{Addrs: brokers, Queue: topic, Group: group}
	return k, nil
}

func (k *Kafka) Caps() broker.Caps      { return Caps }
func (k *Kafka) Where() broker.Endpoint { return k.where }
func (k *Kafka) Describe() string {
	return fmt.Sprintf("Kafka %s, topic %s (%d partitions), group %s", strings.Join(k.where.Addrs, ","), k.where.Queue, k.lanes, k.where.Group)
}

// Place is a record's partition and offset, the words the queue checks
// have always printed.
func (k *Kafka) Place(p broker.Pos) broker.Place {
	return broker.Place{Long: fmt.Sprintf("partition %d offset %d", p.Lane, p.Offset), Short: fmt.Sprintf("%d/%d", p.Lane, p.Offset)}
}

// Close deletes the group and the topic, closes the client and stops the
// Kafka it started, in that order.
func (k *Kafka) Close() {
	for i := len(k.undo) - 1; i >= 0; i-- {
		k.undo[i]()
	}
	k.undo = nil
}

// Produce waits for the broker's acknowledgement of each record, which
// carries the offset it is stored at: the evidence it is in the log.
func (k *Kafka) Produce(ctx context.Context, recs []*broker.Record) error {
	krs := make([]*kgo.Record, len(recs))
	for i, r := range recs {
		krs[i] = &kgo.Record{Topic: k.where.Queue, Partition: r.Lane, Key: r.Key, Value: r.Value}
	}
	// ProduceSync's results come in the order the broker answered, not
	// the order given: each is matched to its record by identity.
	index := make(map[*kgo.Record]int, len(krs))
	for i, kr := range krs {
		index[kr] = i
	}
	for _, pr := range k.Client.ProduceSync(ctx, krs...) {
		r := recs[index[pr.Record]]
		if pr.Err != nil {
			return &broker.ProduceError{I: index[pr.Record], Err: pr.Err}
		}
		r.At = broker.Pos{Lane: pr.Record.Partition, Offset: pr.Record.Offset}
	}
	return nil
}

// Acked is the group's committed offset per partition of the topic.
func (k *Kafka) Acked(ctx context.Context) (broker.Acked, error) {
	rs, err := k.Adm.FetchOffsetsForTopics(ctx, k.where.Group, k.where.Queue)
	if err != nil {
		return broker.Offsets(nil), err
	}
	out := broker.Offsets{}
	for p, r := range rs[k.where.Queue] {
		if r.Err == nil {
			out[p] = r.At
		}
	}
	return out, nil
}

// Group describes the consumer group: its state, its members and each
// member's partitions of the run's topic, as the group's leader assigned them.
func (k *Kafka) Group(ctx context.Context) (broker.Group, error) {
	ds, err := k.Adm.DescribeGroups(ctx, k.where.Group)
	if err != nil {
		return broker.Group{}, err
	}
	d := ds[k.where.Group]
	g := broker.Group{State: d.State, Stable: d.State == "Stable", Err: ds.Error()}
	for _, m := range d.Members {
		bm := broker.Member{ID: m.MemberID}
		if c, ok := m.Assigned.AsConsumer(); ok {
			for _, t := range c.Topics {
				if t.Topic == k.where.Queue {
					bm.Lanes = append(bm.Lanes, t.Partitions...)
				}
			}
		}
		g.Members = append(g.Members, bm)
	}
	slices.SortFunc(g.Members, func(a, b broker.Member) int { return strings.Compare(a.ID, b.ID) })
	return g, nil
}
