package probe

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
)

// placement is where the key goes: a header or a top-level body field.
type placement struct{ Header, BodyField string }

func (k placement) String() string {
	if k.BodyField != "" {
		return "body field " + k.BodyField
	}
	return "header " + k.Header
}

func (k placement) yaml() string {
	if k.BodyField != "" {
		return "{body_field: " + q(k.BodyField) + "}"
	}
	return "{header: " + q(k.Header) + "}"
}

// candidates are the placements tried in turn, unless the flags fix one.
func candidates(o *Options) []placement {
	switch {
	case o.KeyHeader != "":
		return []placement{{Header: o.KeyHeader}}
	case o.KeyBodyField != "":
		return []placement{{BodyField: o.KeyBodyField}}
	}
	c := []placement{{Header: "Idempotency-Key"}, {Header: "X-Idempotency-Key"}}
	if strings.Contains(o.ContentType, "json") {
		c = append(c, placement{BodyField: "idempotency_key"})
	}
	return c
}

// q quotes a string for YAML (a JSON string is a YAML double-quoted scalar).
func q(s string) string { return strconv.Quote(s) }

// headersYAML is a flow mapping of headers, sorted for a stable file.
func headersYAML(h map[string]string) string {
	ks := make([]string, 0, len(h))
	for k := range h {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = q(k) + ": " + q(h[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// callersYAML lists the callers as u1, u2, ...; with no credentials given,
// one caller without headers.
func callersYAML(o *Options) string {
	var b strings.Builder
	cs := o.Callers
	if len(cs) == 0 {
		cs = []map[string]string{nil}
	}
	for i, h := range cs {
		if len(h) == 0 {
			fmt.Fprintf(&b, "  - {name: u%d}\n", i+1)
			continue
		}
		fmt.Fprintf(&b, "  - {name: u%d, headers: %s}\n", i+1, headersYAML(h))
	}
	return b.String()
}

// createYAML is the create block for a key placement.
func createYAML(o *Options, k placement) string {
	return fmt.Sprintf("create:\n  method: %s\n  path: %s\n  key: %s\n  content_type: %s\n  body: %s\n",
		o.Method, q(o.Path), k.yaml(), q(o.ContentType), q(o.Body))
}

// draftYAML is the config the probe's own requests are built from: the
// create request and callers only (the driver needs nothing else).
func draftYAML(o *Options, k placement, base string) string {
	return fmt.Sprintf("target:\n  base_urls: [%s]\n%scallers:\n%soutcomes:\n  rules:\n    - {status: [200], outcome: succeeded}\neffects:\n  fakepsp: true\ntimeout: %s\n",
		q(portless(base)), createYAML(o, k), callersYAML(o), o.Timeout)
}

// portless puts a placeholder port where a command's port goes, so the
// draft validates before the port is picked.
func portless(u string) string { return strings.ReplaceAll(u, "${PORT}", "1") }

// newDriver builds the exactly-once client for one key placement.
func newDriver(o *Options, k placement, base string) (*driver.Driver, error) {
	cfg, err := config.Parse("(probe)", []byte(draftYAML(o, k, base)))
	if err != nil {
		return nil, fail("the create request is not valid with the key as %s: %v", k, err)
	}
	return driver.New(cfg, []string{base}), nil
}
