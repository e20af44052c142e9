package config

import "strings"

// ConsumerOnly says the config tests a consumer and nothing else: it has a
// consumer section and no create request. create, callers, outcomes and
// effects are then optional; the Q checks run and every other check is n/a.
func (c *Config) ConsumerOnly() bool {
	r := c.Create
	return c.Consumer != nil && r.Path == "" && r.Body == "" && r.Method == "" && r.Key == (Key{})
}

// ConsumerOnlyWhy is the reason a check that sends requests does not apply
// to a consumer-only config.
const ConsumerOnlyWhy = "needs create: the config has no create request (a consumer-only config runs the Q checks)"

// consumerOnly checks what a config without a create request may hold: the
// sections that send requests, or judge what they did, need create.
func (v *validator) consumerOnly() {
	c := v.c
	for _, s := range []struct {
		field string
		set   bool
	}{
		{"lookup", c.Lookup != nil}, {"refund", c.Refund != nil}, {"resolve", c.Resolve != nil},
		{"authorize", c.Authorize != nil}, {"capture", c.Capture != nil}, {"webhook", c.Webhook != nil},
		{"consumer.create_first", c.Consumer.CreateFirst},
	} {
		if s.set {
			v.bad(s.field, "needs create: without a create request the config runs the Q checks only (add create, or remove %s)", s.field)
		}
	}
	if len(c.Callers) > 0 {
		v.callers()
	}
	if len(c.Outcomes.Rules) > 0 {
		v.outcomes()
	}
	if c.ConsumerCredits() == nil {
		v.bad("consumer", "a consumer-only config needs a credits read (ledger.credits or consumer.credits): the Q checks judge the credits it reads")
	}
	if strings.TrimSpace(c.Effects.SearchLag) != "" {
		v.bad("effects.search_lag", "needs create: a consumer-only config charges nothing at a PSP")
	}
}
