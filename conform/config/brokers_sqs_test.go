package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// sqsYAML is consumerOnlyYAML on SQS, its endpoint from the environment.
var sqsYAML = strings.Replace(consumerOnlyYAML, "consumer:\n", "consumer:\n  broker: sqs\n", 1)

// TestConsumerSQSRules: SQS's rules fill its defaults (a standard queue,
// its -dlq dead-letter queue, 3 receives, SQS's 30 s visibility timeout,
// the SQS_* variables and no group) and report each problem on its field
// and line, exit-2 errors as every config error is.
func TestConsumerSQSRules(t *testing.T) {
	t.Setenv("IDEMCHECK_TEST_DSN", "postgres://127.0.0.1:5432/credits")
	t.Setenv("IDEMCHECK_TEST_BROKER", "http://127.0.0.1:9324")
	c, err := Parse("cfg.yaml", []byte(sqsYAML))
	if err != nil {
		t.Fatal(err)
	}
	q := c.Consumer
	if k := q.Kind(); q.Topic != "idemcheck-{{run}}" || q.Group != "" || q.Partitions != 0 || k.FIFO || k.DeadLetter != "idemcheck-{{run}}-dlq" ||
		k.MaxReceives != 3 || k.Visibility != 30*time.Second ||
		q.Env != (ConsumerEnv{Brokers: "SQS_ENDPOINT", Topic: "SQS_QUEUE_URL", DeadLetter: "SQS_DLQ_URL"}) {
		t.Fatalf("defaults: topic %q group %q partitions %d kind %+v env %+v", q.Topic, q.Group, q.Partitions, k, q.Env)
	}
	stampedYAML := strings.Replace(sqsYAML, `"amount": {{amount}}}'`, `"amount": {{amount}}, "sent_at": {{now_ns}}}'`, 1)
	c, err = Parse("cfg.yaml", []byte(strings.Replace(stampedYAML, "consumer:\n", "consumer:\n  fifo: true\n  content_dedup: true\n  max_receives: 2\n  visibility_timeout: 2s\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if k := c.Consumer.Kind(); c.Consumer.Topic != "idemcheck-{{run}}.fifo" || k.DeadLetter != "idemcheck-{{run}}-dlq.fifo" || !k.ContentDedup || k.MaxReceives != 2 || k.Visibility != 2*time.Second {
		t.Fatalf("FIFO: topic %q kind %+v", c.Consumer.Topic, k)
	}
	for _, tc := range []struct {
		name, broker, add, field string
		line                     int
		msg                      string
	}{
		{"a host:port, not a URL", "127.0.0.1:9324", "", "consumer.brokers", 7,
			`brokers[0] "127.0.0.1:9324" is not an SQS endpoint URL (http://host:port or https://sqs.<region>.amazonaws.com)`},
		{"a queue without {{run}}", "", "  topic: payments\n", "consumer.topic", 7,
			"must contain {{run}}: each run creates its own queues and deletes them, so a run never reads another's messages"},
		{"a FIFO queue named as standard", "", "  fifo: true\n  topic: pay-{{run}}\n", "consumer.topic", 8, `"pay-{{run}}" must end in .fifo: SQS names a FIFO queue so`},
		{"a standard queue named .fifo", "", "  topic: pay-{{run}}.fifo\n", "consumer.topic", 7,
			`"pay-{{run}}.fifo" ends in .fifo, which SQS keeps for FIFO queues (set consumer.fifo: true)`},
		{"a dead-letter name with a dot", "", "  dead_letter: dlq.{{run}}\n", "consumer.dead_letter", 7,
			`"dlq.{{run}}" may hold only letters, digits, '_' and '-' besides {{run}}`},
		{"a name too long", "", "  topic: " + strings.Repeat("p", 40) + "-{{run}}\n", "consumer.topic", 7,
			`"` + strings.Repeat("p", 40) + `-{{run}}" is longer than SQS's 80 characters once {{run}} (up to 44) is filled in`},
		{"a dead-letter queue too long by its default suffix", "", "  topic: " + strings.Repeat("p", 35) + "-{{run}}\n", "consumer.dead_letter", 5,
			`"` + strings.Repeat("p", 35) + `-{{run}}-dlq" is longer than SQS's 80 characters once {{run}} (up to 44) is filled in`},
		{"a group", "", "  group: g-{{run}}\n", "consumer.group", 7, "SQS has no consumer groups: the consumers share the queue"},
		{"partitions", "", "  partitions: 4\n", "consumer.partitions", 7, "SQS has no partitions"},
		{"content dedup on a standard queue", "", "  content_dedup: true\n", "consumer.content_dedup", 7, "needs consumer.fifo: only a FIFO queue deduplicates"},
		// Q-dup's retry under content dedup differs from its first only by
		// {{now_ns}}: without it the retry would be the first's body again.
		{"content dedup without a send timestamp", "", "  fifo: true\n  content_dedup: true\n", "consumer.message", 10,
			"must carry {{now_ns}} (a send timestamp) with consumer.content_dedup: Q-dup sends a producer retry whose body differs from the first only by it, without a dedup id"},
		{"0 receives is the default, 1001 too many", "", "  max_receives: 1001\n", "consumer.max_receives", 7, "must be between 1 and 1000 (SQS's maxReceiveCount), got 1001"},
		{"half a second", "", "  visibility_timeout: 1500ms\n", "consumer.visibility_timeout", 7, "must be whole seconds from 1s to 12h (SQS's VisibilityTimeout), got 1.5s"},
		{"not a duration", "", "  visibility_timeout: soon\n", "consumer.visibility_timeout", 7, `"soon" is not a duration (e.g. 2s, 24h)`},
	} {
		b := tc.broker
		if b == "" {
			b = "http://127.0.0.1:9324"
		}
		t.Setenv("IDEMCHECK_TEST_BROKER", b)
		_, err := Parse("cfg.yaml", []byte(strings.Replace(sqsYAML, "consumer:\n  broker: sqs\n", "consumer:\n  broker: sqs\n"+tc.add, 1)))
		var es Errors
		if !errors.As(err, &es) || len(es) != 1 || es[0].File != "cfg.yaml" || es[0].Field != tc.field || es[0].Line != tc.line || es[0].Msg != tc.msg {
			t.Errorf("%s: got %v, want one error cfg.yaml:%d %s: %s", tc.name, err, tc.line, tc.field, tc.msg)
		}
	}
}

// TestConsumerSQSFieldsAreErrorsOnKafka: a queue field Kafka has no use
// for is an error naming it, not silently ignored.
func TestConsumerSQSFieldsAreErrorsOnKafka(t *testing.T) {
	t.Setenv("IDEMCHECK_TEST_DSN", "postgres://127.0.0.1:5432/credits")
	t.Setenv("IDEMCHECK_TEST_BROKER", "127.0.0.1:9092")
	_, err := Parse("cfg.yaml", []byte(strings.Replace(consumerOnlyYAML, "consumer:\n", "consumer:\n  fifo: true\n", 1)))
	var es Errors
	if !errors.As(err, &es) || len(es) != 1 || es[0].Field != "consumer.fifo" || es[0].Line != 6 || es[0].Msg != "is not a setting of consumer.broker: kafka" {
		t.Fatalf("got %v, want one error cfg.yaml:6 consumer.fifo: is not a setting of consumer.broker: kafka", err)
	}
}
