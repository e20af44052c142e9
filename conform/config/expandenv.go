package config

import (
	"fmt"
	"os"
	"regexp"
)

// envRefRE is a ${NAME} reference in a URL, DSN or address field.
var envRefRE = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// reservedRE names what idemcheck itself fills later: the ports it picks
// and the instance of a control command.
var reservedRE = regexp.MustCompile(`^(PORT|PORT_[0-9]+|INSTANCE|INDEX)$`)

// expandEnv replaces ${NAME} in every URL, DSN and address field with
// idemcheck's environment, as target.env's values are, so that a database
// address or a password need not be written in the file. ${PORT_n} and the
// other names idemcheck fills are left for later; an unset variable is an
// error naming the field. Only the braced form is read: a bare $ stays, as
// a password may hold one.
func (v *validator) expandEnv() {
	for _, f := range v.envFields() {
		*f.val = envRefRE.ReplaceAllStringFunc(*f.val, func(ref string) string {
			name := envRefRE.FindStringSubmatch(ref)[1]
			if reservedRE.MatchString(name) {
				return ref
			}
			val, ok := os.LookupEnv(name)
			if !ok {
				v.bad(f.name, "${%s} is not set in idemcheck's environment", name)
				return ref // kept, so the field's other checks do not pile on
			}
			return val
		})
	}
}

type envField struct {
	name string
	val  *string
}

// envFields are the fields expandEnv reads: each URL, DSN and address.
func (v *validator) envFields() []envField {
	c := v.c
	var out []envField
	add := func(name string, p *string) {
		if *p != "" {
			out = append(out, envField{name, p})
		}
	}
	for i := range c.Target.BaseURLs {
		add(fmt.Sprintf("target.base_urls[%d]", i), &c.Target.BaseURLs[i])
	}
	add("effects.fakepsp_url", &c.Effects.FakePSPURL)
	if h := c.Effects.Counter; h != nil {
		add("effects.http_counter.url", &h.URL)
	}
	if q := c.Effects.SQL; q != nil {
		add("effects.sql_counter.dsn", &q.DSN)
	}
	credits := func(prefix string, cr *Credits) {
		if cr != nil {
			add(prefix+".url", &cr.URL)
			add(prefix+".dsn", &cr.DSN)
		}
	}
	if l := c.Ledger; l != nil {
		add("ledger.url", &l.URL)
		add("ledger.dsn", &l.DSN)
		credits("ledger.credits", l.Credits)
	}
	if w := c.Webhook; w != nil {
		add("webhook.url", &w.URL)
	}
	if q := c.Consumer; q != nil {
		for i := range q.Brokers {
			add(fmt.Sprintf("consumer.brokers[%d]", i), &q.Brokers[i])
		}
		credits("consumer.credits", q.Credits)
	}
	if p := c.Proxy; p != nil {
		add("toxiproxy.api", &p.API)
		for i := range p.Links {
			add(fmt.Sprintf("toxiproxy.links[%d].upstream", i), &p.Links[i].Upstream)
		}
	}
	return out
}
