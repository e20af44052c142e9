package checks

import (
	"testing"

	"github.com/idemcheck/idemcheck/conform/broker/rabbitmq"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// TestQueueChecksOnRabbitMQ: on RabbitMQ's capabilities (a dead-letter
// queue, nothing else a check needs) Q-dup, Q-kill and Q-poison apply and
// Q-rebalance and Q-visibility are n/a naming what the broker lacks.
func TestQueueChecksOnRabbitMQ(t *testing.T) {
	want := map[string]string{
		"Q-rebalance":  "needs ordered partitions and a consumer group that rebalances and a list of the queue's consumers, which broker rabbitmq (consumer.broker) does not have",
		"Q-visibility": "needs a visibility timeout, which broker rabbitmq (consumer.broker) does not have",
	}
	for _, c := range QueueChecks() {
		if why := scenario.NotApplicable(queueEnv("rabbitmq", rabbitmq.Caps), c); why != want[c.ID] {
			t.Errorf("%s on RabbitMQ: n/a %q, want %q", c.ID, why, want[c.ID])
		}
	}
}
