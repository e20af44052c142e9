package config

import (
	"errors"
	"strings"
	"testing"
)

// TestEffectsPSP: effects.psp picks the fakepsp dialect (stripe by
// default); the webhook's secret and event types and the fixed secret key
// are checked by that PSP's rules; an unknown PSP, or one without
// fakepsp: true, is an error naming the field and its line.
func TestEffectsPSP(t *testing.T) {
	const base = "  fakepsp: true\n"
	parse := func(effects, hook string) (*Config, error) {
		tail := ""
		if hook != "" {
			tail = "\nwebhook: {path: /hooks" + hook + "}\nledger:\n  credits: {url: \"http://127.0.0.1:${PORT_0}/credits?p={{psp_payment_id}}\"}\n"
		}
		return Parse("cfg.yaml", []byte(strings.Replace(Starter, base, base+effects, 1)+tail))
	}
	c, err := parse("", "")
	if err != nil || c.Effects.PSPName() != "stripe" {
		t.Fatalf("default: %v, psp %q", err, c.Effects.PSPName())
	}
	for _, ok := range []struct{ effects, hook string }{
		{"  psp: adyen\n", ""},
		{"  psp: adyen\n", ", events: [AUTHORISATION, CAPTURE], secret: " + strings.Repeat("AB", 32)},
		{"  psp: stripe\n", ", events: [payment_intent.succeeded], secret: whsec_abc"},
		{"  psp: adyen\n  fakepsp_secret_key: AQEanything\n", ""},
	} {
		if _, err := parse(ok.effects, ok.hook); err != nil {
			t.Errorf("%q %q: %v", ok.effects, ok.hook, err)
		}
	}
	for _, tc := range []struct{ effects, hook, field, says string }{
		{"  psp: paypal\n", "", "effects.psp", `unknown PSP "paypal" (supported: adyen, checkout, stripe)`},
		{"  psp: adyen\n", ", secret: whsec_abc", "webhook.secret", "must be an Adyen HMAC key: 64 hex digits"},
		{"  psp: adyen\n", ", events: [payment_intent.succeeded]", "webhook.events[0]", "is not an Adyen event code"},
		{"", ", events: [AUTHORISATION]", "webhook.events[0]", "is not a Stripe event type"},
		{"", ", secret: " + strings.Repeat("AB", 32), "webhook.secret", "must start with whsec_"},
		{"  fakepsp_secret_key: AQEkey\n", "", "effects.fakepsp_secret_key", "must start with sk_test_"},
	} {
		_, err := parse(tc.effects, tc.hook)
		var es Errors
		if !errors.As(err, &es) || len(es) != 1 || es[0].Field != tc.field || es[0].Line == 0 || !strings.Contains(es[0].Msg, tc.says) {
			t.Errorf("%q %q: got %v, want one error on %s saying %q", tc.effects, tc.hook, err, tc.field, tc.says)
		}
	}
	noPSP := strings.Replace(Starter, base, "  fakepsp_url: http://127.0.0.1:1\n  psp: adyen\n", 1)
	_, err = Parse("cfg.yaml", []byte(noPSP))
	var es Errors
	if !errors.As(err, &es) || len(es) != 1 || es[0].Field != "effects.psp" || !strings.Contains(es[0].Msg, "--dialect") {
		t.Errorf("psp without fakepsp: true: got %v, want one error naming idemcheck psp's --dialect", err)
	}
}
