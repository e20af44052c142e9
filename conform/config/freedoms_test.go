package config

import (
	"errors"
	"strings"
	"testing"
)

// TestWebhookFreedomKnobs: Stripe's delivery freedoms are on with a webhook
// section unless turned off; a bad value, or a knob without fakepsp: true
// or without a webhook, is an error naming the field.
func TestWebhookFreedomKnobs(t *testing.T) {
	const base = "  fakepsp: true\n"
	const hook = "\nwebhook: {path: /hooks}\nledger:\n  credits: {url: \"http://127.0.0.1:${PORT_0}/credits?p={{psp_payment_id}}\"}\n"
	parse := func(effects, tail string) (*Config, error) {
		return Parse("cfg.yaml", []byte(strings.Replace(Starter, base, base+effects, 1)+tail))
	}
	for _, tc := range []struct {
		effects, tail string
		dups, order   float64
	}{
		{"", hook, 0.25, 0.5},
		{"  webhook_duplicates: off\n", hook, 0, 0.5},
		{"  webhook_out_of_order: off\n  webhook_duplicates: on\n", hook, 0.25, 0},
		{"", "", 0, 0}, // no webhook: nothing to deliver
	} {
		c, err := parse(tc.effects, tc.tail)
		if err != nil {
			t.Fatalf("%q: %v", tc.effects, err)
		}
		if f := c.WebhookFreedoms(3); f.Duplicates != tc.dups || f.OutOfOrder != tc.order || f.Seed != 3 {
			t.Errorf("%q (webhook %v): freedoms %+v, want duplicates %v out of order %v", tc.effects, tc.tail != "", f, tc.dups, tc.order)
		}
	}
	for _, tc := range []struct{ effects, tail, field, says string }{
		{"  webhook_duplicates: sometimes\n", hook, "effects.webhook_duplicates", "must be on or off"},
		{"  webhook_out_of_order: off\n", "", "effects.webhook_out_of_order", "needs a webhook section"},
	} {
		_, err := parse(tc.effects, tc.tail)
		var es Errors
		if !errors.As(err, &es) || len(es) != 1 || es[0].Field != tc.field || es[0].Line == 0 || !strings.Contains(es[0].Msg, tc.says) {
			t.Errorf("%q: got %v, want one error on %s saying %q", tc.effects, err, tc.field, tc.says)
		}
	}
	noPSP := strings.Replace(Starter, base, "  fakepsp_url: http://127.0.0.1:1\n  webhook_duplicates: off\n", 1)
	_, err := Parse("cfg.yaml", []byte(noPSP))
	var es Errors
	if !errors.As(err, &es) || len(es) != 1 || es[0].Field != "effects.webhook_duplicates" || !strings.Contains(es[0].Msg, "--webhook-duplicates=false") {
		t.Errorf("a knob without fakepsp: true: got %v, want one error naming idemcheck psp's flag", err)
	}
}
