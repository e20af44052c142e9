package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// base is a minimal valid config that starts its service: the one-credit
// sections are appended to it.
const base = `target:
  base_urls: ["http://127.0.0.1:${PORT_0}"]
  command: ["./svc"]
create:
  path: /payments
  key: {header: Idempotency-Key}
  body: '{"amount": {{amount}}}'
callers:
  - {name: u1, headers: {Authorization: "Bearer t"}}
outcomes:
  rules:
    - {status: [201], outcome: succeeded}
effects: {fakepsp: true}
`

// TestOneCreditSectionsNameFileLineField: every bad value of the webhook,
// ledger.credits and consumer sections is an error naming the file, the
// line and the field, and a good section loads.
func TestOneCreditSectionsNameFileLineField(t *testing.T) {
	credits := "ledger:\n  credits: {url: \"http://127.0.0.1:${PORT_0}/credits?pi={{psp_payment_id}}\", list: data}\n"
	consumer := "consumer:\n  message: '{\"event_id\": \"{{event_id}}\", \"psp_payment_id\": \"{{psp_payment_id}}\", \"amount\": {{amount}}}'\n"
	for _, c := range []struct{ name, yaml, field, msg string }{
		{"webhook path", "webhook: {path: hooks}\n", "webhook.path", "must start with /"},
		{"webhook both", "webhook: {path: /h, url: \"http://127.0.0.1:1/h\"}\n", "webhook", "not both"},
		{"webhook event", "webhook: {path: /h, events: [Payment Succeeded]}\n", "webhook.events[0]", "not a Stripe event type"},
		{"webhook secret", "webhook: {path: /h, secret: abc}\n", "webhook.secret", "whsec_"},
		{"webhook tolerance", "webhook: {path: /h, tolerance: soon}\n", "webhook.tolerance", "not a duration"},
		{"credits url", "ledger:\n  credits: {url: \"http://127.0.0.1:1/credits\"}\n", "ledger.credits.url", "must name the payment"},
		{"credits query", "ledger:\n  credits: {dsn: \"postgres://x\", query: \"SELECT amount FROM c\"}\n", "ledger.credits.query", "$1"},
		{"consumer topic", credits + "consumer:\n  topic: payments\n  message: '{\"event_id\": \"{{event_id}}\", \"psp_payment_id\": \"{{psp_payment_id}}\", \"amount\": {{amount}}}'\n", "consumer.topic", "{{run}}"},
		{"consumer placeholder", credits + "consumer:\n  message: '{\"event_id\": \"{{event_id}}\", \"amount\": {{amount}}, \"x\": \"{{shop}}\"}'\n", "consumer.message", "unknown placeholder {{shop}}"},
		{"consumer env", credits + consumer + "  env: {topic: \"my topic\"}\n", "consumer.env.topic", "not an environment variable name"},
		{"consumer credits", credits + consumer + "  credits: {url: \"http://127.0.0.1:1/c\"}\n", "consumer.credits.url", "must name the payment"},
		{"consumer credits both", credits + consumer + "  credits: {url: \"http://127.0.0.1:1/c?p={{payment_id}}\", dsn: \"postgres://x\"}\n", "consumer.credits", "not both"},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := base + c.yaml
			_, err := Parse("cfg.yaml", []byte(text))
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("no field error: %v", err)
			}
			found := false
			for _, e := range es {
				if e.Field == c.field && strings.Contains(e.Msg, c.msg) && e.File == "cfg.yaml" && e.Line > strings.Count(base, "\n") {
					found = true
				}
			}
			if !found {
				t.Errorf("want %s (line past the base) saying %q, got:\n%v", c.field, c.msg, err)
			}
		})
	}
	good := base + "webhook: {path: /webhooks/stripe, events: [payment_intent.succeeded, \"charge.*\"]}\n" + credits + consumer
	cfg, err := Parse("cfg.yaml", []byte(good))
	if err != nil {
		t.Fatalf("a good config is refused: %v", err)
	}
	if got := fmt.Sprintf("%s %s %s %s", cfg.Webhook.ToleranceD(), cfg.Webhook.TimeoutD(), cfg.Webhook.SecretEnv, cfg.Ledger.Credits.AmountField); got != "5m0s 3s PSP_WEBHOOK_SECRET amount" {
		t.Errorf("defaults %s", got)
	}
}
