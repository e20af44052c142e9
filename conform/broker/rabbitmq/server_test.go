package rabbitmq

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/stack/services"
)

// rabbit starts a RabbitMQ for one test and returns its AMQP and
// management URLs, stopped after the test.
func rabbit(t *testing.T) (amqpURL, mgmtURL string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st, err := services.Start(ctx, services.Options{RabbitMQ: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Stop(context.Background()) })
	m, ok := st.RabbitMQ.(interface{ Management() string })
	if !ok {
		t.Skipf("the %s provider's RabbitMQ has no management API", st.Provider)
	}
	return st.RabbitMQ.Endpoint(), m.Management()
}

func runName(at time.Time) string { return fmt.Sprintf("q-7-0badcafe-t%d", at.Unix()) }

func open(t *testing.T, addrs []string, log *bytes.Buffer) *RabbitMQ {
	t.Helper()
	b, err := Open(context.Background(), broker.Setup{Addrs: addrs, Run: runName(time.Now()), QueueName: "idemcheck-{{run}}",
		Kind: broker.QueueKind{DeadLetter: "idemcheck-{{run}}-dlq"}, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	return b.(*RabbitMQ)
}

func counts(t *testing.T, r *RabbitMQ) Counts {
	t.Helper()
	a, err := r.Acked(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return a.(Counts)
}

// waitCounts reads the counts until ok holds, bounded: the acknowledgement
// counter lags the broker by its statistics interval (5 s).
func waitCounts(t *testing.T, r *RabbitMQ, what string, ok func(Counts) bool) Counts {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c := counts(t, r)
		if ok(c) {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: never within 20 s; last %s", what, c)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestRabbitMQQueueOnARealBroker, against a real RabbitMQ with the official
// client as the consumer: the queue and its dead-letter queue are declared
// by Open; Ready waits for the consumer; Produce is confirmed, the publish
// numbers and message ids in order; the evidence passes the records only
// once the broker counts them acknowledged or dead-lettered (a delivered,
// unacknowledged message holds it back, and comes back marked redelivered
// when its consumer's channel closes); Close deletes the queue, the
// dead-letter queue and its exchange; a SIGKILLed run's leftovers of this
// config are swept by the next Open, and a fresh run's are not.
func TestRabbitMQQueueOnARealBroker(t *testing.T) {
	amqpURL, mgmtURL := rabbit(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	conn, err := amqp.Dial(amqpURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// What a SIGKILLed run left two hours ago, and a run under way.
	stale, fresh := "idemcheck-"+runName(time.Now().Add(-2*time.Hour)), "idemcheck-"+runName(time.Now().Add(-time.Minute))
	setup, _ := conn.Channel()
	for _, n := range []string{stale, stale + "-dlq", fresh} {
		if _, err := setup.QueueDeclare(n, true, false, false, false, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := setup.ExchangeDeclare(stale+"-dlq", amqp.ExchangeFanout, true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	r := open(t, []string{amqpURL, mgmtURL}, &log)
	closed := false
	defer func() {
		if !closed {
			r.Close()
		}
	}()
	for _, n := range []string{stale, stale + "-dlq"} {
		if !strings.Contains(log.String(), "sweeping queue "+n+",") {
			t.Errorf("the sweep did not say it deleted %s:\n%s", n, log.String())
		}
	}
	w := r.Where()
	if !strings.HasPrefix(w.Queue, "idemcheck-q-7-0badcafe-t") || w.DeadLetter != w.Queue+"-dlq" || w.Addrs[0] != amqpURL || r.Caps() != broker.DeadLetter|broker.Requeue {
		t.Fatalf("where %+v caps %v", w, r.Caps())
	}
	if rd, err := r.Ready(ctx, 1); err != nil || rd.Ready || rd.Saw != fmt.Sprintf("0 of 0 message(s) acknowledged, 0 redelivery(ies), 0 ready in queue %s with 0 consumer(s); dead-letter queue %s held 0", w.Queue, w.DeadLetter) {
		t.Fatalf("ready with no consumer: %+v %v", rd, err)
	}
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Qos(1, 0, false); err != nil {
		t.Fatal(err)
	}
	ds, err := ch.Consume(w.Queue, "c1", false, false, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitCounts(t, r, "one consumer", func(c Counts) bool { return c.Consumers == 1 })
	if rd, err := r.Ready(ctx, 1); err != nil || !rd.Ready {
		t.Fatalf("ready with its consumer: %+v %v", rd, err)
	}
	recs := []*broker.Record{{Key: []byte("pay-1"), Value: []byte("a")}, {Key: []byte("pay-2"), Value: []byte("b")}, {Key: []byte("pay-3"), Value: []byte("poison")}}
	if err := r.Produce(ctx, recs); err != nil {
		t.Fatal(err)
	}
	for i, rec := range recs {
		if rec.At.Offset != int64(i+1) || rec.At.ID != MessageID(rec.Key, rec.Value) {
			t.Errorf("record %d at %+v", i, rec.At)
		}
	}
	if p := r.Place(recs[0].At); p.Long != "publish 1 (message id "+recs[0].At.ID+")" || p.Short != "#1" {
		t.Errorf("place %+v", p)
	}
	// The first two acknowledged, the third rejected without requeue.
	for i := 0; i < 3; i++ {
		d := <-ds
		if d.MessageId != recs[i].At.ID || d.Redelivered || d.Headers["key"] != string(recs[i].Key) {
			t.Fatalf("delivery %d: id %q redelivered %v headers %v", i, d.MessageId, d.Redelivered, d.Headers)
		}
		if i < 2 {
			err = d.Ack(false)
		} else {
			err = d.Reject(false)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	c := waitCounts(t, r, "two acknowledged, one dead-lettered", func(c Counts) bool { return c.Passed(recs[0].At) })
	if c.Acked != 2 || c.Dead != 1 || c.Ready != 0 || c.Consumers != 1 || c.DeadLettered() != 1 {
		t.Fatalf("after 2 acks and a reject: %s", c)
	}
	// Delivered and held unacknowledged: never passed while its consumer lives.
	held := []*broker.Record{{Key: []byte("pay-4"), Value: []byte("d")}}
	if err := r.Produce(ctx, held); err != nil {
		t.Fatal(err)
	}
	first := <-ds
	time.Sleep(6 * time.Second) // past the statistics interval the counter lags by
	if c := counts(t, r); c.Passed(held[0].At) || c.Ready != 0 || c.Produced != 4 {
		t.Fatalf("a message held unacknowledged passed: %s", c)
	}
	if rd, err := r.Ready(ctx, 1); err != nil || rd.Ready {
		t.Fatalf("ready while a message is held: %+v %v", rd, err)
	}
	// Its consumer's channel closes (as when its process dies): requeued.
	_ = ch.Close()
	c = waitCounts(t, r, "the held message requeued", func(c Counts) bool { return c.Consumers == 0 && c.Ready == 1 })
	if c.Passed(held[0].At) {
		t.Fatalf("a requeued message passed: %s", c)
	}
	ch2, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	d, ok, err := ch2.Get(w.Queue, false)
	if err != nil || !ok || d.MessageId != first.MessageId || !d.Redelivered {
		t.Fatalf("after the channel closed: ok %v %v, id %q redelivered %v", ok, err, d.MessageId, d.Redelivered)
	}
	if err := d.Ack(false); err != nil {
		t.Fatal(err)
	}
	waitCounts(t, r, "all acknowledged, one redelivered", func(c Counts) bool { return c.Acked == 3 && c.Redelivered == 1 && c.Passed(held[0].At) })
	_ = ch2.Close()
	r.Close()
	closed = true
	left := queueNames(t, mgmtURL)
	if !slices.Equal(left, []string{fresh}) {
		t.Errorf("queues after Close: %v, want only the fresh run's %s", left, fresh)
	}
	ex, _ := conn.Channel()
	for _, n := range []string{w.DeadLetter, stale + "-dlq"} {
		if err := ex.ExchangeDeclarePassive(n, amqp.ExchangeFanout, true, false, false, false, nil); err == nil {
			t.Errorf("exchange %s left", n)
		}
		ex, _ = conn.Channel() // a failed passive declare closes the channel
	}
}

func queueNames(t *testing.T, mgmtURL string) []string {
	t.Helper()
	m, err := newMgmt(mgmtURL, "/")
	if err != nil {
		t.Fatal(err)
	}
	qs, err := m.queues(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, q := range qs {
		out = append(out, q.Name)
	}
	return out
}

// TestRabbitMQStartsItsOwn: with no consumer.brokers the run starts a
// RabbitMQ (with its management API) and Close stops it.
func TestRabbitMQStartsItsOwn(t *testing.T) {
	var log bytes.Buffer
	r := open(t, nil, &log)
	url := r.amqpURL
	if !strings.Contains(r.Describe(), "management API http://guest:xxxxx@127.0.0.1:") {
		t.Errorf("describe: %s", r.Describe())
	}
	r.Close()
	if c, err := amqp.Dial(url); err == nil {
		c.Close()
		t.Errorf("the RabbitMQ the run started still answers at %s", url)
	}
}
