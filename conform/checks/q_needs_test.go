package checks

import (
	"context"
	"testing"

	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/broker/kafka"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/faults"
)

// noCredits satisfies the credits read NeedQueue asks for; no check runs
// here, so it is never read.
type noCredits struct{}

func (noCredits) Credits(context.Context, scenario.PaymentRef) ([]int64, error) { return nil, nil }

// queueEnv is a run's consumer on a broker named name doing caps, with
// two consumer processes and a credits read: every need but the broker's
// is met.
func queueEnv(name string, caps broker.Caps) *scenario.Env {
	return &scenario.Env{Queue: &scenario.Queue{Cfg: &config.Consumer{Broker: name}, Caps: caps,
		Credits: noCredits{}, Procs: []faults.Proc{nil, nil}}}
}

// TestQueueChecksNeedBrokerCaps: on Kafka every Q check applies but
// Q-visibility (Kafka has no visibility timeout); on a broker lacking a
// capability a check needs, the check is n/a naming exactly what is
// missing, and a check that does not need it still applies.
func TestQueueChecksNeedBrokerCaps(t *testing.T) {
	qs := QueueChecks()
	if len(qs) != 5 {
		t.Fatalf("%d Q checks, want 5", len(qs))
	}
	noVis := "needs a visibility timeout, which broker kafka (consumer.broker) does not have"
	for _, c := range qs {
		why := scenario.NotApplicable(queueEnv("kafka", kafka.Caps), c)
		if c.ID == "Q-visibility" && why != noVis {
			t.Errorf("Q-visibility on Kafka: n/a %q, want %q", why, noVis)
		} else if c.ID != "Q-visibility" && why != "" {
			t.Errorf("%s on Kafka: n/a %q, want it to apply", c.ID, why)
		}
	}
	noVisB := "needs a visibility timeout, which broker b (consumer.broker) does not have"
	sqsLike := broker.DedupWindow | broker.Visibility | broker.DeadLetter
	for _, tc := range []struct {
		caps broker.Caps
		want map[string]string
	}{
		{kafka.Caps &^ broker.Rebalance, map[string]string{"Q-visibility": noVisB,
			"Q-rebalance": "needs a consumer group that rebalances, which broker b (consumer.broker) does not have"}},
		// Q-poison needs one of its two ends: lanes the poison stops, or a
		// dead-letter queue the broker moves it to.
		{kafka.Caps &^ broker.Partitions, map[string]string{"Q-visibility": noVisB,
			"Q-rebalance": "needs ordered partitions, which broker b (consumer.broker) does not have",
			"Q-poison":    "needs ordered partitions or a dead-letter queue, which broker b (consumer.broker) does not have"}},
		// Q-kill waits for the killed members only where the broker lists
		// them, and for its readiness elsewhere.
		{kafka.Caps &^ broker.Members, map[string]string{"Q-visibility": noVisB,
			"Q-rebalance": "needs a list of the queue's consumers, which broker b (consumer.broker) does not have"}},
		// Readiness is every broker's own (broker.Ready): Q-dup and Q-kill
		// apply on a broker with no list of consumers, Q-poison on one with
		// a dead-letter queue.
		{sqsLike, map[string]string{
			"Q-rebalance": "needs ordered partitions and a consumer group that rebalances and a list of the queue's consumers, which broker b (consumer.broker) does not have"}},
		{broker.Visibility, map[string]string{
			"Q-rebalance": "needs ordered partitions and a consumer group that rebalances and a list of the queue's consumers, which broker b (consumer.broker) does not have",
			"Q-poison":    "needs ordered partitions or a dead-letter queue, which broker b (consumer.broker) does not have"}},
	} {
		for _, c := range qs {
			if got := scenario.NotApplicable(queueEnv("b", tc.caps), c); got != tc.want[c.ID] {
				t.Errorf("%s on caps %q: n/a %q, want %q", c.ID, tc.caps, got, tc.want[c.ID])
			}
		}
	}
	// A reason of the check's own comes first: without a consumer section
	// the Q checks say so, not what a broker lacks.
	if got, want := scenario.NotApplicable(&scenario.Env{}, qs[0]), scenario.NeedQueue(&scenario.Env{}); got != want {
		t.Errorf("no consumer section: n/a %q, want %q", got, want)
	}
}

// TestQueueChaosNeedsBrokerCaps: chaos's consumer stream runs on Kafka and
// is left out, saying why, on a broker without partitions.
func TestQueueChaosNeedsBrokerCaps(t *testing.T) {
	if why := scenario.NeedBroker(queueEnv("kafka", kafka.Caps), QueueChaosNeeds); why != "" {
		t.Errorf("Kafka: %q, want the stream to run", why)
	}
	want := "needs ordered partitions, which broker b (consumer.broker) does not have"
	if why := scenario.NeedBroker(queueEnv("b", broker.Members|broker.DeadLetter), QueueChaosNeeds); why != want {
		t.Errorf("no partitions: %q, want %q", why, want)
	}
}
