package rabbitmq

import (
	"fmt"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/conform/broker"
)

// TestCountsPassOnlyOnTheBrokersWord: the queue passed its messages only
// when the acknowledgement counter and the dead-letter queue cover every
// message published, or when no consumer is left and none is ready (what
// a closed channel held is requeued, so nothing is held unacknowledged).
// A lagging counter can only hold a pass back.
func TestCountsPassOnlyOnTheBrokersWord(t *testing.T) {
	for _, c := range []struct {
		c    Counts
		want bool
	}{
		{Counts{Produced: 3, Acked: 3, Consumers: 1}, true},
		{Counts{Produced: 3, Acked: 2, Dead: 1, Consumers: 1}, true},
		// Delivered, not acknowledged: nothing ready, a consumer holds one.
		{Counts{Produced: 3, Acked: 2, Consumers: 1}, false},
		// The counter lags; the consumers are gone and nothing is ready.
		{Counts{Produced: 3, Acked: 1, Consumers: 0}, true},
		// The consumers are gone and what they held is ready again.
		{Counts{Produced: 3, Acked: 2, Ready: 1, Consumers: 0}, false},
		{Counts{}, true},
	} {
		if got := c.c.Passed(broker.Pos{}); got != c.want {
			t.Errorf("%+v: Passed %v, want %v", c.c, got, c.want)
		}
	}
	c := Counts{Queue: "q", DeadLetter: "q-dlq", Produced: 5, Acked: 7, Ready: 1, Consumers: 2, Dead: 1, Redelivered: 2}
	if got, want := c.String(), "5 of 5 message(s) acknowledged, 2 redelivery(ies), 1 ready in queue q with 2 consumer(s); dead-letter queue q-dlq held 1"; got != want {
		t.Errorf("String %q, want %q", got, want)
	}
}

// TestReadyNeedsEachConsumerAndNoEarlierMessage: one consumer per process
// (some, when idemcheck does not own them), and everything published
// before acknowledged or dead-lettered.
func TestReadyNeedsEachConsumerAndNoEarlierMessage(t *testing.T) {
	for _, c := range []struct {
		c         Counts
		consumers int
		want      bool
	}{
		{Counts{Consumers: 2}, 2, true},
		{Counts{Consumers: 1}, 2, false},
		{Counts{Consumers: 3}, 2, false},
		{Counts{Consumers: 1}, 0, true},
		{Counts{Consumers: 0}, 0, false},
		{Counts{Consumers: 2, Produced: 2, Acked: 1}, 2, false},
		{Counts{Consumers: 2, Produced: 2, Acked: 1, Dead: 1}, 2, true},
	} {
		if got := readyOf(c.c, c.consumers); got != c.want {
			t.Errorf("%+v with %d process(es): ready %v, want %v", c.c, c.consumers, got, c.want)
		}
	}
}

// TestMessageIDIsARetrysOwn: a retry of a record (the same key and body)
// carries its first copy's message id; another record another.
func TestMessageIDIsARetrysOwn(t *testing.T) {
	a, b := MessageID([]byte("pay_1"), []byte(`{"e":1}`)), MessageID([]byte("pay_1"), []byte(`{"e":1}`))
	c, d := MessageID([]byte("pay_1"), []byte(`{"e":2}`)), MessageID([]byte("pay_1{"), []byte(`"e":1}`))
	if a != b || a == c || a == d || len(a) != len("idem-")+16 {
		t.Fatalf("ids %s %s %s %s", a, b, c, d)
	}
}

// TestManagementBesideAMQP: the default management API is the AMQP host,
// port 15672 (15671 over TLS), the same user.
func TestManagementBesideAMQP(t *testing.T) {
	for in, want := range map[string]string{
		"amqp://u:p@rabbit.internal:5672/payments": "http://u:p@rabbit.internal:15672",
		"amqps://u:p@rabbit.internal/":             "https://u:p@rabbit.internal:15671",
		"amqp://127.0.0.1":                         "http://guest:guest@127.0.0.1:15672",
	} {
		if got := defaultManagement(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
	if v, err := vhostOf("amqp://u:p@h:5672/payments"); err != nil || v != "payments" {
		t.Errorf("vhost %q %v", v, err)
	}
}

// TestSweepTakesOnlyStaleUnconsumedRuns: a queue of this config's
// templates older than broker.StaleAfter and with no consumer is swept
// (a dead-letter queue with its exchange); a fresh one, one with a
// consumer, and another config's are not.
func TestSweepTakesOnlyStaleUnconsumedRuns(t *testing.T) {
	now := time.Now()
	old := fmt.Sprintf("q-1-deadbeef-t%d", now.Add(-2*time.Hour).Unix())
	fresh := fmt.Sprintf("q-1-0badcafe-t%d", now.Unix())
	qs := []queueInfo{{Name: "idemcheck-" + old}, {Name: "idemcheck-" + old + "-dlq"}, {Name: "idemcheck-" + fresh},
		{Name: "other-" + old}, {Name: "idemcheck-" + old + "x", Consumers: 0}, {Name: "idemcheck-" + old + "-dlq", Consumers: 1}}
	got := staleQueues(qs, []string{"idemcheck-{{run}}", "idemcheck-{{run}}-dlq"}, now)
	want := []stale{{"idemcheck-" + old, false}, {"idemcheck-" + old + "-dlq", true}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("swept %v, want %v", got, want)
	}
}

// TestRedeliveriesCompleteOnlyWhenAcksCoverAll: the redeliver counter is
// a complete reading only in a sample whose ack counter covers every
// message published: a lagging sample may miss a redelivery, and no
// consumers left (a pass of Passed) does not make it complete.
func TestRedeliveriesCompleteOnlyWhenAcksCoverAll(t *testing.T) {
	for _, c := range []struct {
		c        Counts
		n        int64
		complete bool
	}{
		{Counts{Produced: 4, Acked: 4, Redelivered: 2, Consumers: 2}, 2, true},
		{Counts{Produced: 4, Acked: 3, Dead: 1, Redelivered: 1}, 1, true},
		{Counts{Produced: 4, Acked: 3, Redelivered: 1, Consumers: 2}, 1, false},
		{Counts{Produced: 4, Acked: 1, Redelivered: 0, Consumers: 0}, 0, false},
	} {
		var r broker.Redeliveries = c.c
		if n, complete := r.Redeliveries(); n != c.n || complete != c.complete {
			t.Errorf("%+v: Redeliveries %d, %v; want %d, %v", c.c, n, complete, c.n, c.complete)
		}
	}
}
