package config

import (
	"errors"
	"strings"
	"testing"
)

const consumerOnlyYAML = `target:
  base_urls: ["http://127.0.0.1:${PORT_0}"]
  command: [./creditsvc]
  ready: /healthz
consumer:
  brokers: ["${IDEMCHECK_TEST_BROKER}"]
  message: '{"event_id": "{{event_id}}", "payment_id": "{{payment_id}}", "amount": {{amount}}}'
  credits: {dsn: "${IDEMCHECK_TEST_DSN}", query: "SELECT amount FROM credits WHERE payment_id = $2"}
`

// TestConsumerOnlyConfig: target, consumer and a credits read make a valid
// config; ${NAME} in its DSN and broker address is read from the
// environment, ${PORT_n} left for later, and a variable that is not set is
// an error naming the field.
func TestConsumerOnlyConfig(t *testing.T) {
	t.Setenv("IDEMCHECK_TEST_BROKER", "127.0.0.1:9092")
	t.Setenv("IDEMCHECK_TEST_DSN", "postgres://u:pa$$word@127.0.0.1:5432/credits")
	c, err := Parse("cfg.yaml", []byte(consumerOnlyYAML))
	if err != nil {
		t.Fatalf("consumer-only config: %v", err)
	}
	if !c.ConsumerOnly() || c.Consumer.Brokers[0] != "127.0.0.1:9092" || c.Consumer.Credits.DSN != "postgres://u:pa$$word@127.0.0.1:5432/credits" || c.Target.BaseURLs[0] != "http://127.0.0.1:${PORT_0}" {
		t.Fatalf("expanded: only %v brokers %v dsn %q base %q", c.ConsumerOnly(), c.Consumer.Brokers, c.Consumer.Credits.DSN, c.Target.BaseURLs[0])
	}
	for _, tc := range []struct{ edit, repl, field, says string }{
		{"${IDEMCHECK_TEST_DSN}", "${IDEMCHECK_TEST_UNSET_DSN}", "consumer.credits.dsn", "${IDEMCHECK_TEST_UNSET_DSN} is not set"},
		{"consumer:\n", "consumer:\n  create_first: true\n", "consumer.create_first", "needs create"},
		{"  credits: {dsn", "  # credits: {dsn", "consumer", "needs a credits read"},
	} {
		_, err := Parse("cfg.yaml", []byte(strings.Replace(consumerOnlyYAML, tc.edit, tc.repl, 1)))
		var es Errors
		if !errors.As(err, &es) || len(es) != 1 || es[0].Field != tc.field || !strings.Contains(es[0].Msg, tc.says) {
			t.Errorf("%q: got %v, want one error on %s saying %q", tc.repl, err, tc.field, tc.says)
		}
	}
	// With a create request the config is not consumer-only: create,
	// callers, outcomes and effects are required again.
	_, err = Parse("cfg.yaml", []byte(consumerOnlyYAML+"create: {path: /payments}\n"))
	var es Errors
	if !errors.As(err, &es) || !strings.Contains(es.Error(), "callers") || !strings.Contains(es.Error(), "effects") {
		t.Errorf("create without callers and effects: got %v", err)
	}
	// Every URL field reads the environment too.
	t.Setenv("IDEMCHECK_TEST_HOST", "10.0.0.7")
	c, err = Parse("cfg.yaml", []byte(strings.Replace(Starter, `"http://127.0.0.1:${PORT_0}"]`, `"http://${IDEMCHECK_TEST_HOST}:8080"]`, 1)))
	if err != nil || c.Target.BaseURLs[0] != "http://10.0.0.7:8080" {
		t.Fatalf("base url from the environment: %v %v", err, c.Target.BaseURLs)
	}
}
