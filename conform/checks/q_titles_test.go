package checks

import (
	"testing"

	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/broker/brokertest"
	"github.com/idemcheck/idemcheck/conform/broker/rabbitmq"
	"github.com/idemcheck/idemcheck/conform/broker/sqs"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// TestQueueTitlesInTheBrokersWords: Q-kill's and Q-poison's titles are
// Kafka's, byte for byte, in the catalogue and on a run on Kafka; on SQS
// and RabbitMQ they name the broker's own acknowledgement and the queue.
// The other Q checks keep one title on every broker.
func TestQueueTitlesInTheBrokersWords(t *testing.T) {
	kafka := map[string]string{
		"Q-kill":   "the consumer SIGKILLed between its credit and its offset commit, and at seeded points inside a record's processing, restarted",
		"Q-poison": "a malformed record between good ones on one partition",
	}
	own := map[string]map[string]string{
		"sqs": {"Q-kill": "the consumer SIGKILLed between its credit and its DeleteMessage, and at seeded points inside a record's processing, restarted",
			"Q-poison": "a malformed record between good ones on the queue"},
		"rabbitmq": {"Q-kill": "the consumer SIGKILLed between its credit and its ack, and at seeded points inside a record's processing, restarted",
			"Q-poison": "a malformed record between good ones on the queue"},
	}
	brokers := map[string]broker.Broker{"kafka": &brokertest.Fake{}, "sqs": &sqs.SQS{}, "rabbitmq": &rabbitmq.RabbitMQ{}}
	for _, c := range QueueChecks() {
		if w, ok := kafka[c.ID]; ok && c.Title != w {
			t.Errorf("%s's catalogue title %q, want Kafka's %q", c.ID, c.Title, w)
		}
		for name, b := range brokers {
			e := queueEnv(name, 0)
			e.Queue.Broker = b
			want := c.Title
			if w, ok := own[name][c.ID]; ok {
				want = w
			}
			if got := c.In(e).Title; got != want {
				t.Errorf("%s on %s: title %q, want %q", c.ID, name, got, want)
			}
		}
		if c.In(&scenario.Env{}) != c {
			t.Errorf("%s without a consumer: not the catalogue's check", c.ID)
		}
	}
}
