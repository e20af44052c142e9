package config

import (
	"errors"
	"strings"
	"testing"
)

// rabbitYAML is consumerOnlyYAML on RabbitMQ, its URL from the environment.
var rabbitYAML = strings.Replace(consumerOnlyYAML, "consumer:\n", "consumer:\n  broker: rabbitmq\n", 1)

// TestConsumerRabbitMQRules: RabbitMQ's rules fill its defaults (the
// queue, its -dlq dead-letter queue, the AMQP_* variables, no group) and
// report each problem on its field and line, as every config error is
// (exit 2).
func TestConsumerRabbitMQRules(t *testing.T) {
	t.Setenv("IDEMCHECK_TEST_DSN", "postgres://127.0.0.1:5432/credits")
	t.Setenv("IDEMCHECK_TEST_BROKER", "amqp://guest:guest@127.0.0.1:5672/")
	c, err := Parse("cfg.yaml", []byte(rabbitYAML))
	if err != nil {
		t.Fatal(err)
	}
	q := c.Consumer
	if k := q.Kind(); q.Topic != "idemcheck-{{run}}" || q.Group != "" || q.Partitions != 0 || k.DeadLetter != "idemcheck-{{run}}-dlq" ||
		k.MaxReceives != 0 || k.Visibility != 0 || q.Env != (ConsumerEnv{Brokers: "AMQP_URL", Topic: "AMQP_QUEUE", DeadLetter: "AMQP_DLQ"}) {
		t.Fatalf("defaults: topic %q group %q partitions %d kind %+v env %+v", q.Topic, q.Group, q.Partitions, k, q.Env)
	}
	both := `["${IDEMCHECK_TEST_BROKER}", "http://guest:guest@127.0.0.1:15672"]`
	if _, err := Parse("cfg.yaml", []byte(strings.Replace(rabbitYAML, `["${IDEMCHECK_TEST_BROKER}"]`, both, 1))); err != nil {
		t.Fatalf("an AMQP URL and a management URL: %v", err)
	}
	sqsOnly := "is SQS's; RabbitMQ has no use for it (an unacknowledged message returns when its consumer's channel closes, and a rejected one goes to consumer.dead_letter)"
	for _, tc := range []struct {
		name, broker, add, field string
		line                     int
		msg                      string
	}{
		{"a host:port, not a URL", "127.0.0.1:5672", "", "consumer.brokers", 7,
			`brokers[0] "127.0.0.1:5672" is not an AMQP URL (amqp://user:password@host:5672/vhost)`},
		{"a password is not repeated", "http://u:secret@127.0.0.1:5672", "", "consumer.brokers", 7,
			`brokers[0] "http://u:xxxxx@127.0.0.1:5672" is not an AMQP URL (amqp://user:password@host:5672/vhost)`},
		{"a queue without {{run}}", "", "  topic: payments\n", "consumer.topic", 7,
			"must contain {{run}}: each run declares its own queues and deletes them, so a run never reads another's messages"},
		{"a queue RabbitMQ keeps", "", "  topic: amq.{{run}}\n", "consumer.topic", 7, `"amq.{{run}}" starts with "amq.", which RabbitMQ keeps for its own queues`},
		{"a dead-letter queue without {{run}}", "", "  dead_letter: dlq\n", "consumer.dead_letter", 7,
			"must contain {{run}}: each run declares its own queues and deletes them, so a run never reads another's messages"},
		{"the dead-letter queue is the queue", "", "  topic: p-{{run}}\n  dead_letter: p-{{run}}\n", "consumer.dead_letter", 8, `"p-{{run}}" is the queue itself`},
		{"a name too long", "", "  topic: " + strings.Repeat("p", 220) + "-{{run}}\n", "consumer.topic", 7,
			`"` + strings.Repeat("p", 220) + `-{{run}}" is longer than RabbitMQ's 255 bytes once {{run}} (up to 44) is filled in`},
		{"a group", "", "  group: g-{{run}}\n", "consumer.group", 7, "RabbitMQ has no consumer groups: the consumers share the queue"},
		{"partitions", "", "  partitions: 4\n", "consumer.partitions", 7, "RabbitMQ's queue has no partitions"},
		{"fifo", "", "  fifo: true\n", "consumer.fifo", 7, sqsOnly},
		{"max_receives", "", "  max_receives: 3\n", "consumer.max_receives", 7, sqsOnly},
		{"visibility_timeout", "", "  visibility_timeout: 3s\n", "consumer.visibility_timeout", 7, sqsOnly},
		{"a group variable", "", "  env: {group: G}\n", "consumer.env.group", 7, "RabbitMQ has no consumer groups: the consumers share the queue"},
	} {
		b := tc.broker
		if b == "" {
			b = "amqp://guest:guest@127.0.0.1:5672/"
		}
		t.Setenv("IDEMCHECK_TEST_BROKER", b)
		_, err := Parse("cfg.yaml", []byte(strings.Replace(rabbitYAML, "consumer:\n  broker: rabbitmq\n", "consumer:\n  broker: rabbitmq\n"+tc.add, 1)))
		var es Errors
		if !errors.As(err, &es) || len(es) != 1 || es[0].File != "cfg.yaml" || es[0].Field != tc.field || es[0].Line != tc.line || es[0].Msg != tc.msg {
			t.Errorf("%s: got %v, want one error cfg.yaml:%d %s: %s", tc.name, err, tc.line, tc.field, tc.msg)
		}
	}
	t.Setenv("IDEMCHECK_TEST_BROKER", "amqp://guest:guest@127.0.0.1:5672/")
	_, err = Parse("cfg.yaml", []byte(strings.Replace(rabbitYAML, `["${IDEMCHECK_TEST_BROKER}"]`, `["${IDEMCHECK_TEST_BROKER}", "127.0.0.1:15672"]`, 1)))
	var es Errors
	if !errors.As(err, &es) || len(es) != 1 || es[0].Field != "consumer.brokers" || es[0].Msg != `brokers[1] "127.0.0.1:15672" is not the management API's URL (http://user:password@host:15672)` {
		t.Errorf("a management address that is not a URL: %v", err)
	}
}
