package config

import "github.com/idemcheck/idemcheck/fakepsp"

// freedoms checks effects.webhook_duplicates and effects.webhook_out_of_order:
// Stripe's documented delivery freedoms, on unless turned off, in the
// fakepsp idemcheck starts when it delivers webhooks.
func (v *validator) freedoms() {
	e := &v.c.Effects
	knobs := []struct {
		field, flag, value string
		dst                *bool
	}{
		{"effects.webhook_duplicates", "--webhook-duplicates", e.WebhookDuplicates, &v.c.webhookDups},
		{"effects.webhook_out_of_order", "--webhook-out-of-order", e.WebhookOutOfOrder, &v.c.webhookOrder},
	}
	for _, k := range knobs {
		*k.dst = v.onOff(k.field, k.value) && e.FakePSP && v.c.Webhook != nil
		switch {
		case k.value == "":
		case !e.FakePSP:
			v.bad(k.field, "needs fakepsp: true (for a fakepsp idemcheck does not start, give `idemcheck psp` its %s=false)", k.flag)
		case v.c.Webhook == nil:
			v.bad(k.field, "needs a webhook section: it says how fakepsp delivers the events to the service's handler")
		}
	}
}

// onOff reads an on/off knob that is on when unset.
func (v *validator) onOff(field, s string) bool {
	switch s {
	case "", "on", "true":
		return true
	case "off", "false":
		return false
	}
	v.bad(field, "%q: must be on or off", s)
	return true
}

// WebhookFreedoms are the freedoms the fakepsp idemcheck starts takes with
// the service's webhooks, drawn from seed.
func (c *Config) WebhookFreedoms(seed uint64) fakepsp.WebhookFreedoms {
	return fakepsp.Freedoms(c.webhookDups, c.webhookOrder, seed)
}

// FreedomsWords says which freedoms are on, for the console and the report.
func (c *Config) FreedomsWords() string {
	return c.WebhookFreedoms(0).Words("effects.webhook_duplicates: off", "effects.webhook_out_of_order: off")
}
