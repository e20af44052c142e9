package conform

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// TestConsumerOnlyConfig: a config with only target, consumer and a credits
// read (no create, callers, outcomes or effects), its broker given through
// ${ENV}, runs the Q checks against creditsvc and passes; every other check
// is n/a saying why, and no warning about the create path is printed.
func TestConsumerOnlyConfig(t *testing.T) {
	t.Setenv("IDEMCHECK_TEST_KAFKA", testKafka(t))
	text := fmt.Sprintf(`target:
  base_urls: ["http://127.0.0.1:${PORT_0}", "http://127.0.0.1:${PORT_1}"]
  command: [%q, "--flaw", "none"]
  instances: 2
  ready: /healthz
  start_timeout: 15s
consumer:
  brokers: ["${IDEMCHECK_TEST_KAFKA}"]
  message: '{"event_id": "{{event_id}}", "payment_id": "{{payment_id}}", "amount": {{amount}}, "merchant": "{{merchant}}", "order_id": "{{order_id}}"}'
  credits: {url: "http://127.0.0.1:${PORT_0}/credits?payment_id={{payment_id}}", list: data}
timeout: 3s
settle: 150ms
converge_within: 6s
quiesce: 100ms
`, creditsvcBin)
	// Q-kill and Q-rebalance against this consumer are
	// TestConsumerCorrectPasses's: skipped here for the suite's time.
	slow := []string{"Q-kill", "Q-rebalance"}
	code, rep, out := runText(t, text, Options{Skip: slow})
	if code != ExitPass || rep == nil {
		t.Fatalf("exit %d, want 0\n%s", code, out)
	}
	var ran []string
	for _, r := range rep.Results {
		switch {
		case slices.Contains(slow, r.ID):
			t.Errorf("%s ran, though skipped", r.ID)
		case r.ID == "Q-visibility":
			// A Q check too, n/a for Kafka's lack, not for the config's.
			if want := "needs a visibility timeout, which broker kafka (consumer.broker) does not have"; r.Verdict != scenario.NA || r.Why != want {
				t.Errorf("Q-visibility on Kafka: %s %q, want n/a %q", r.Verdict, r.Why, want)
			}
		case slices.Contains(queueIDs, r.ID):
			ran = append(ran, r.ID)
			if r.Verdict != scenario.Pass {
				t.Errorf("%s: %s %s", r.ID, r.Verdict, r.Why)
			}
		case r.Verdict != scenario.NA || r.Why != config.ConsumerOnlyWhy:
			t.Errorf("%s on a consumer-only config: %s %q, want n/a %q", r.ID, r.Verdict, r.Why, config.ConsumerOnlyWhy)
		}
	}
	if want := []string{"Q-dup", "Q-poison"}; !slices.Equal(ran, want) {
		t.Errorf("Q checks run %v, want %v", ran, want)
	}
	for _, warn := range []string{"PROBE", "idemcheck's keys", "create.key"} {
		if strings.Contains(out, warn) {
			t.Errorf("a consumer-only run printed %q:\n%s", warn, out)
		}
	}
}
