package config

import (
	"errors"
	"strings"
	"testing"
)

// TestConsumerBroker: consumer.broker defaults to kafka, takes kafka, and
// any value no broker registered is one error on that field listing the
// supported ones.
func TestConsumerBroker(t *testing.T) {
	t.Setenv("IDEMCHECK_TEST_BROKER", "127.0.0.1:9092")
	t.Setenv("IDEMCHECK_TEST_DSN", "postgres://127.0.0.1:5432/credits")
	c, err := Parse("cfg.yaml", []byte(consumerOnlyYAML))
	if err != nil || c.Consumer.Broker != "kafka" {
		t.Fatalf("no consumer.broker: %v, broker %q, want kafka", err, c.Consumer.Broker)
	}
	c, err = Parse("cfg.yaml", []byte(strings.Replace(consumerOnlyYAML, "consumer:\n", "consumer:\n  broker: kafka\n", 1)))
	if err != nil || c.Consumer.Broker != "kafka" {
		t.Fatalf("consumer.broker kafka: %v", err)
	}
	_, err = Parse("cfg.yaml", []byte(strings.Replace(consumerOnlyYAML, "consumer:\n", "consumer:\n  broker: nats\n", 1)))
	var es Errors
	want := `unknown broker "nats" (supported: kafka, rabbitmq, sqs)`
	if !errors.As(err, &es) || len(es) != 1 || es[0].Field != "consumer.broker" || es[0].Msg != want || es[0].Line != 6 {
		t.Fatalf("consumer.broker nats: got %v, want one error on consumer.broker at line 6: %s", err, want)
	}
}
