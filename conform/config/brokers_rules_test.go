package config

import (
	"errors"
	"strings"
	"testing"
)

// TestConsumerKafkaRulesKeepTheirErrors: Kafka's rules for the consumer
// section (conform/broker/kafka's Validate) report each problem exactly
// as the config did when it held them: the field, its line, the words;
// and fill the same defaults (the command's variables' names among them).
func TestConsumerKafkaRulesKeepTheirErrors(t *testing.T) {
	t.Setenv("IDEMCHECK_TEST_DSN", "postgres://127.0.0.1:5432/credits")
	t.Setenv("IDEMCHECK_TEST_BROKER", "127.0.0.1:9092")
	c, err := Parse("cfg.yaml", []byte(consumerOnlyYAML))
	if err != nil {
		t.Fatal(err)
	}
	if q := c.Consumer; q.Topic != "idemcheck-{{run}}" || q.Group != "idemcheck-{{run}}" || q.Partitions != 4 ||
		q.Env != (ConsumerEnv{Brokers: "KAFKA_BROKERS", Topic: "KAFKA_TOPIC", Group: "KAFKA_GROUP"}) {
		t.Fatalf("defaults: topic %q group %q partitions %d env %+v", q.Topic, q.Group, q.Partitions, q.Env)
	}
	for _, tc := range []struct {
		name, broker, add, field string
		line                     int
		msg                      string
	}{
		{"an address without a port", "kafka-1", "", "consumer.brokers", 6, `brokers[0] "kafka-1" is not host:port`},
		{"a topic without {{run}}", "127.0.0.1:9092", "  topic: payments\n", "consumer.topic", 6,
			"must contain {{run}}: each run creates its own topic and group and deletes them, so a run never reads another's records or offsets"},
		{"a group with a slash", "127.0.0.1:9092", "  group: pay/{{run}}\n", "consumer.group", 6,
			`"pay/{{run}}" may hold only letters, digits, '.', '_' and '-' besides {{run}}`},
		{"65 partitions", "127.0.0.1:9092", "  partitions: 65\n", "consumer.partitions", 6, "must be between 1 and 64, got 65"},
		{"a variable name with a dash", "127.0.0.1:9092", "  env: {topic: KAFKA-TOPIC}\n", "consumer.env.topic", 6, `"KAFKA-TOPIC" is not an environment variable name`},
	} {
		t.Setenv("IDEMCHECK_TEST_BROKER", tc.broker)
		_, err := Parse("cfg.yaml", []byte(strings.Replace(consumerOnlyYAML, "consumer:\n", "consumer:\n"+tc.add, 1)))
		var es Errors
		if !errors.As(err, &es) || len(es) != 1 || es[0].File != "cfg.yaml" || es[0].Field != tc.field || es[0].Line != tc.line || es[0].Msg != tc.msg {
			t.Errorf("%s: got %v, want one error cfg.yaml:%d %s: %s", tc.name, err, tc.line, tc.field, tc.msg)
		}
	}
}
