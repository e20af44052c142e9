package config

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp"
)

// VectorIDs are the protocol vectors a config may mark required.
var VectorIDs = []string{
	"P-once", "P-replay", "P-mismatch", "P-mismatch-no-poison", "P-conflict", "P-retry-after",
	"P-missing-key", "P-quoted-key", "P-header-case", "P-get-ignores-key", "P-two-keys",
	"P-expiry", "P-replay-header", "P-4xx-replayed", "P-5xx-stored", "P-empty-key",
	"P-long-key", "P-problem-json",
}

// SafetyIDs are the safety checks a config may mark required: required
// means "must apply to this target" (an n/a fails the run).
var SafetyIDs = []string{
	"A2", "A5", "A6", "A1", "S-5xx-after-charge", "A7", "S-restart", "A3", "A4", "S-replicas",
	"B5", "S-deps", "S-multistep", "S-capture",
	"W-dup", "W-concurrent", "W-lost-ack", "W-kill", "W-order", "W-early", "W-forged",
	"Q-dup", "Q-kill", "Q-rebalance", "Q-visibility", "Q-poison", "B4",
}

// Placeholders idemcheck fills in request templates.
var Placeholders = []string{"order_id", "amount", "currency", "payment_method", "payment_id", "key", "caller", "now_ns"}

var outcomeNames = []string{"succeeded", "failed", "processing", "in_progress", "mismatch", "void", "error"}

var placeholderRE = regexp.MustCompile(`\{\{\s*([a-zA-Z0-9_]+)\s*\}\}`)

type validator struct {
	c    *Config
	errs Errors
}

func (v *validator) bad(field, format string, args ...any) {
	v.errs = append(v.errs, FieldError{File: v.c.File, Line: v.c.Line(field), Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (v *validator) dur(field, s string, def time.Duration, dst *time.Duration) {
	if s == "" {
		*dst = def
		return
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		v.bad(field, "%q is not a duration (e.g. 2s, 24h)", s)
		return
	}
	*dst = d
}

// Validate fills defaults and returns every problem, each with file, line and field.
func (c *Config) Validate() Errors {
	v := &validator{c: c}
	v.expandEnv()
	v.target()
	if c.ConsumerOnly() {
		v.consumerOnly()
	} else {
		v.create()
		v.callers()
		v.outcomes()
	}
	v.lookup()
	v.refund()
	v.resolve()
	v.capture()
	v.effects()
	v.profile()
	v.dur("retry_horizon", c.RetryHorizon, 24*time.Hour, &c.retryHorizon)
	v.dur("key_window", c.KeyWindow, 0, &c.keyWindow)
	v.dur("timeout", c.Timeout, 10*time.Second, &c.timeout)
	v.dur("settle", c.Settle, 300*time.Millisecond, &c.settle)
	v.dur("converge_within", c.ConvergeWithin, 20*time.Second, &c.converge)
	v.dur("quiesce", c.Quiesce, 30*time.Second, &c.quiesce)
	v.searchLag()
	v.ledger()
	v.credits()
	v.webhook()
	v.freedoms()
	v.consumer()
	if c.Concurrency == 0 {
		c.Concurrency = 8
	} else if c.Concurrency < 2 || c.Concurrency > 64 {
		v.bad("concurrency", "must be between 2 and 64, got %d", c.Concurrency)
	}
	for i, r := range c.Required {
		if !slices.Contains(VectorIDs, r) && !slices.Contains(SafetyIDs, r) {
			v.bad(fmt.Sprintf("required[%d]", i), "unknown check %q (known: %s, %s)", r, strings.Join(SafetyIDs, ", "), strings.Join(VectorIDs, ", "))
		}
	}
	return v.errs
}

func (v *validator) target() {
	t := &v.c.Target
	if t.Instances == 0 {
		t.Instances = 1
	} else if t.Instances < 1 || t.Instances > 8 {
		v.bad("target.instances", "must be between 1 and 8, got %d", t.Instances)
	}
	if len(t.BaseURLs) == 0 {
		v.bad("target.base_urls", "at least one base URL is required (use http://127.0.0.1:${PORT_0} with target.command)")
	}
	for i, u := range t.BaseURLs {
		f := fmt.Sprintf("target.base_urls[%d]", i)
		if strings.Contains(u, "${PORT_") && len(t.Command) == 0 {
			v.bad(f, "uses ${PORT_n} but target.command is not set, so idemcheck picks no port")
			continue
		}
		pu, err := url.Parse(portless(u))
		if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			v.bad(f, "%q is not an http(s) URL", u)
		}
	}
	if len(t.Command) > 0 && len(t.BaseURLs) > 0 && len(t.BaseURLs) != t.Instances {
		v.bad("target.base_urls", "names %d URLs but target.instances is %d (one URL per started instance)", len(t.BaseURLs), t.Instances)
	}
	if len(t.Command) == 0 && t.Instances > 1 {
		v.bad("target.instances", "needs target.command (idemcheck starts the instances)")
	}
	if t.Ready != "" && !strings.HasPrefix(t.Ready, "/") {
		v.bad("target.ready", "must be a path starting with /, got %q", t.Ready)
	}
	v.dur("target.start_timeout", t.StartTimeout, 20*time.Second, &t.startTimeout)
	v.dur("target.stop_grace", t.StopGrace, 5*time.Second, &t.stopGrace)
	v.control()
}

func (v *validator) request(prefix string, r *Request, needKey bool) {
	if r.Method == "" {
		if needKey {
			r.Method = "POST"
		} else {
			r.Method = "GET"
		}
	}
	r.Method = strings.ToUpper(r.Method)
	if !slices.Contains([]string{"GET", "POST", "PUT", "PATCH", "DELETE"}, r.Method) {
		v.bad(prefix+".method", "unsupported method %q", r.Method)
	}
	if !strings.HasPrefix(r.Path, "/") {
		v.bad(prefix+".path", "must start with /, got %q", r.Path)
	}
	if r.ContentType == "" && r.Body != "" {
		r.ContentType = "application/json"
	}
	parts := []struct{ field, text string }{{prefix + ".path", r.Path}, {prefix + ".body", r.Body}}
	for k, v := range r.Headers {
		parts = append(parts, struct{ field, text string }{prefix + ".headers." + k, v})
	}
	for _, part := range parts {
		for _, m := range placeholderRE.FindAllStringSubmatch(part.text, -1) {
			if !slices.Contains(Placeholders, m[1]) {
				v.bad(part.field, "unknown placeholder {{%s}} (known: %s)", m[1], strings.Join(Placeholders, ", "))
			}
		}
	}
	if !needKey {
		return
	}
	if r.Key.Header != "" && r.Key.BodyField != "" {
		v.bad(prefix+".key", "set header or body_field, not both")
	}
	if r.Key.Header == "" && r.Key.BodyField == "" {
		r.Key.Header = "Idempotency-Key"
	}
	if r.Key.BodyField != "" && !strings.Contains(r.ContentType, "json") {
		v.bad(prefix+".key.body_field", "needs a JSON body (content_type %q)", r.ContentType)
	}
	switch r.Key.Format {
	case "":
		r.Key.Format = "uuid"
	case "uuid", "random":
	default:
		v.bad(prefix+".key.format", "%q: use uuid (default) or random (prefix plus random characters)", r.Key.Format)
	}
	if r.Key.Format == "uuid" && (r.Key.Prefix != "" || r.Key.Length != 0) {
		v.bad(prefix+".key.format", "prefix and length need format: random (a UUID is 36 characters)")
	}
	if r.Key.Format == "random" {
		if r.Key.Length == 0 {
			r.Key.Length = 32
		}
		if r.Key.Length < len(r.Key.Prefix)+8 || r.Key.Length > 255 {
			v.bad(prefix+".key.length", "%d: must leave at least 8 random characters after the prefix and be at most 255", r.Key.Length)
		}
	}
	for i, f := range r.VolatileFields {
		if f == "" || f == r.Key.BodyField {
			v.bad(fmt.Sprintf("%s.volatile_fields[%d]", prefix, i), "%q cannot be volatile", f)
		}
	}
	if len(r.VolatileFields) > 0 && !strings.Contains(r.ContentType, "json") {
		v.bad(prefix+".volatile_fields", "needs a JSON body (content_type %q)", r.ContentType)
	}
	if r.Body == "" {
		v.bad(prefix+".body", "a body template is required")
	} else if !strings.Contains(r.Body, "{{amount}}") && !strings.Contains(r.Body, "{{ amount }}") {
		v.bad(prefix+".body", "must contain {{amount}}: idemcheck changes the amount to make a mismatch and to tell intents apart")
	}
}

func (v *validator) create() {
	v.request("create", &v.c.Create, true)
	v.meaning("create", &v.c.Create)
}

func (v *validator) lookup() {
	if v.c.Lookup == nil {
		return
	}
	v.request("lookup", v.c.Lookup, false)
	if !strings.Contains(v.c.Lookup.Path, "payment_id") {
		v.bad("lookup.path", "must contain {{payment_id}}")
	}
}

func (v *validator) refund() {
	r := v.c.Refund
	if r == nil {
		return
	}
	if r.Method == "" {
		r.Method = "POST"
	}
	v.request("refund", r, false)
	if !strings.Contains(r.Path, "payment_id") {
		v.bad("refund.path", "must contain {{payment_id}}")
	}
	if r.Key.BodyField != "" && !strings.Contains(r.ContentType, "json") {
		v.bad("refund.key.body_field", "needs a JSON body (content_type %q)", r.ContentType)
	}
}

func (v *validator) callers() {
	if len(v.c.Callers) == 0 {
		v.bad("callers", "at least one caller is required (two for the cross-caller scenario A6)")
	}
	seen := map[string]bool{}
	for i, c := range v.c.Callers {
		f := fmt.Sprintf("callers[%d].name", i)
		if c.Name == "" {
			v.bad(f, "a caller needs a name")
		} else if seen[c.Name] {
			v.bad(f, "duplicate caller %q", c.Name)
		}
		seen[c.Name] = true
	}
}

func (v *validator) outcomes() {
	o := &v.c.Outcomes
	if len(o.Rules) == 0 {
		v.bad("outcomes.rules", "at least one rule mapping a status code to an outcome is required")
	}
	for i, r := range o.Rules {
		f := fmt.Sprintf("outcomes.rules[%d]", i)
		if len(r.Status) == 0 {
			v.bad(f+".status", "list at least one status code")
		}
		for _, s := range r.Status {
			if s < 100 || s > 599 {
				v.bad(f+".status", "%d is not an HTTP status code", s)
			}
		}
		if !slices.Contains(outcomeNames, r.Outcome) {
			v.bad(f+".outcome", "unknown outcome %q (one of %s)", r.Outcome, strings.Join(outcomeNames, ", "))
		}
		if r.Equals != "" && r.Field == "" {
			v.bad(f+".equals", "needs field")
		}
	}
}

func (v *validator) effects() {
	e := &v.c.Effects
	n := 0
	if e.FakePSP {
		n++
	}
	if e.FakePSPURL != "" {
		n++
		if u, err := url.Parse(e.FakePSPURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			v.bad("effects.fakepsp_url", "%q must be the base URL of a running `idemcheck psp`, like http://fakepsp:12111", e.FakePSPURL)
		}
	}
	if e.FakePSPListen != "" {
		if err := fakepsp.CheckListen(e.FakePSPListen, e.FakePSPAllowRemote); err != nil {
			v.bad("effects.fakepsp_listen", "%v (set effects.fakepsp_allow_remote: true to serve beyond loopback, e.g. 0.0.0.0:12111 for a service in another container)", err)
		}
	}
	if e.PSP != "" && !slices.Contains(fakepsp.Dialects(), e.PSP) {
		v.bad("effects.psp", "unknown PSP %q (supported: %s)", e.PSP, strings.Join(fakepsp.Dialects(), ", "))
	}
	if e.PSP != "" && !e.FakePSP {
		v.bad("effects.psp", "needs fakepsp: true (for a fakepsp idemcheck does not start, give `idemcheck psp` its --dialect)")
	}
	if f := e.Formats(); f != nil && e.FakePSPKey != "" {
		if msg := f.CheckSecretKey(e.FakePSPKey); msg != "" {
			v.bad("effects.fakepsp_secret_key", "%s", msg)
		}
	}
	if (e.FakePSPListen != "" || e.FakePSPKey != "" || e.FakePSPAllowRemote) && !e.FakePSP {
		v.bad("effects.fakepsp", "fakepsp_listen, fakepsp_allow_remote and fakepsp_secret_key need fakepsp: true")
	}
	if e.Counter != nil {
		n++
		if u, err := url.Parse(portless(e.Counter.URL)); err != nil || u.Host == "" {
			v.bad("effects.http_counter.url", "%q is not a URL", e.Counter.URL)
		}
	}
	if e.SQL != nil {
		n++
		if e.SQL.DSN == "" {
			v.bad("effects.sql_counter.dsn", "required")
		}
		if e.SQL.Query == "" {
			v.bad("effects.sql_counter.query", "required (a query returning one integer)")
		}
	}
	if n != 1 && (n != 0 || !v.c.ConsumerOnly()) {
		v.bad("effects", "choose exactly one of fakepsp: true, fakepsp_url, http_counter, sql_counter (got %d)", n)
	}
	v.proxy()
}

func (v *validator) profile() {
	c := v.c
	if c.Profile == "" {
		c.Profile = "ietf"
	}
	p, ok := Profiles[c.Profile]
	if !ok {
		v.bad("profile", "unknown profile %q (ietf, stripe, custom)", c.Profile)
		return
	}
	c.proto = applyOverride(p, c.Protocol)
	pr := c.proto
	if !slices.Contains([]string{"", "required", "forbidden"}, pr.RetryAfter) {
		v.bad("protocol.retry_after", "%q: use required, forbidden or leave unset", pr.RetryAfter)
	}
	if !slices.Contains([]string{"", "stored", "not_stored"}, pr.Stores5xx) {
		v.bad("protocol.stores_5xx", "%q: use stored, not_stored or leave unset", pr.Stores5xx)
	}
	for f, s := range map[string]int{"protocol.missing_key_status": pr.MissingKeyStatus, "protocol.in_progress_status": pr.InProgressStatus, "protocol.mismatch_status": pr.MismatchStatus} {
		if s < 100 || s > 599 {
			v.bad(f, "%d is not an HTTP status code", s)
		}
	}
	if pr.MaxKeyLength < 1 {
		v.bad("protocol.max_key_length", "must be positive")
	}
}

func (v *validator) ledger() {
	l := v.c.Ledger
	if l == nil {
		return
	}
	if l.Credits != nil && l.URL == "" && l.DSN == "" {
		return // credits only
	}
	if (l.URL == "") == (l.DSN == "") {
		v.bad("ledger", "set url (a GET answering a JSON list) or dsn and query (SQL), not both")
	}
	if l.URL != "" {
		if u, err := url.Parse(portless(l.URL)); err != nil || u.Host == "" {
			v.bad("ledger.url", "%q is not a URL", l.URL)
		}
		if !strings.Contains(l.URL, "order_id") {
			v.bad("ledger.url", "must contain {{order_id}}: idemcheck reads one intent's rows")
		}
	}
	if l.DSN != "" && !strings.Contains(l.Query, "$1") {
		v.bad("ledger.query", "must select one intent's rows with $1 (the order id)")
	}
	if l.OrderIDField == "" {
		l.OrderIDField = "order_id"
	}
	if l.AmountField == "" {
		l.AmountField = "amount"
	}
}

var portRE = regexp.MustCompile(`\$\{PORT_[0-9]+\}`)

// portless puts a dummy port where idemcheck will put a picked one.
func portless(u string) string { return portRE.ReplaceAllString(u, "1") }
