// Package config loads and validates the YAML file that describes a target
// payment endpoint for `idemcheck run`. Every error names file, line and field.
package config

import (
	"time"

	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// Config is one target description. Durations are parsed by Validate into the
// unexported fields so errors can point at the YAML line.
type Config struct {
	Target   Target   `yaml:"target"`
	Create   Request  `yaml:"create"`
	Callers  []Caller `yaml:"callers"`
	Outcomes Outcomes `yaml:"outcomes"`
	Lookup   *Request `yaml:"lookup"`
	// Refund, optional, undoes a payment ({{payment_id}}); with a key when
	// key.header or key.body_field is set. Enables the multi-step check.
	Refund *Request `yaml:"refund"`
	// Resolve, optional, asks "did it happen?" of a key, not of a payment
	// (RESOLVE, SCENARIOS.md B1-B3): a service that answers it must make the
	// key's late or concurrent create void, never charge it. It carries the
	// create's key. Enables chaos's resolve shapes.
	Resolve  *Request          `yaml:"resolve"`
	Effects  Effects           `yaml:"effects"`
	Proxy    *Proxy            `yaml:"toxiproxy"`
	Profile  string            `yaml:"profile"`
	Protocol *ProtocolOverride `yaml:"protocol"`
	// RetryHorizon is how long the target's clients may retry one payment.
	RetryHorizon string `yaml:"retry_horizon"`
	// KeyWindow is how long the target documents that it keeps a key.
	KeyWindow string `yaml:"key_window"`
	// Required lists protocol vector IDs whose deviation fails the run.
	Required []string `yaml:"required"`
	Strict   bool     `yaml:"strict"`
	// Concurrency is N for the concurrent-copies scenario (A2).
	Concurrency int `yaml:"concurrency"`
	// Timeout bounds one HTTP attempt.
	Timeout string `yaml:"timeout"`
	// Settle is how long effects must stay unchanged before a scenario is judged.
	Settle string `yaml:"settle"`
	// ConvergeWithin bounds how long idemcheck keeps retrying (with backoff,
	// and the lookup when given) after a fault until the target gives a final
	// answer (default 20s).
	ConvergeWithin string `yaml:"converge_within"`
	// Quiesce is the quiet period before the final recount of every intent's
	// charges across the run (default 30s: longer than a resolver's sweep).
	Quiesce string `yaml:"quiesce"`
	// Ledger, optional, reads the service's own record of charges per intent.
	Ledger *Ledger `yaml:"ledger"`
	// Authorize and Capture, optional, enable the authorize/capture check
	// S-capture (conform/checks/s_capture.go).
	Authorize *Request `yaml:"authorize"`
	Capture   *Request `yaml:"capture"`
	// Webhook, optional, is the service's handler of the PSP's events
	// (webhook.go): it enables the webhook checks, with ledger.credits.
	Webhook *Webhook `yaml:"webhook"`
	// Consumer, optional, is the service's Kafka consumer of payment
	// records (consumer.go): it enables the queue checks, with ledger.credits.
	Consumer *Consumer `yaml:"consumer"`

	// File is the path the config was read from; Positions maps a dotted
	// field path (create.path, callers[1].name) to its line.
	File      string         `yaml:"-"`
	Positions map[string]int `yaml:"-"`

	retryHorizon, keyWindow, timeout, settle, converge, quiesce, searchLag time.Duration
	// webhookDups and webhookOrder: effects.webhook_duplicates and
	// effects.webhook_out_of_order, resolved (freedoms.go).
	webhookDups, webhookOrder bool
	proto                     Protocol
}

// Target says where the service is and, optionally, how to start it.
type Target struct {
	// BaseURLs are the instances; ${PORT_0}, ${PORT_1}... are replaced by the
	// ports idemcheck picks when it starts the command itself.
	BaseURLs []string `yaml:"base_urls"`
	// Command starts one instance; idemcheck then owns the process (kill,
	// pause, restart). Its env gets PORT, PSP_URL, PSP_KEY, STATE_DIR.
	Command   []string          `yaml:"command"`
	Env       map[string]string `yaml:"env"`
	Instances int               `yaml:"instances"`
	// Ready is a path polled with GET until any HTTP answer arrives.
	Ready        string `yaml:"ready"`
	StartTimeout string `yaml:"start_timeout"`
	// StopGrace is how long a graceful stop waits after SIGTERM before
	// SIGKILL, as an orchestrator's termination grace period does (default
	// 5s): every restart of a started instance, and the graceful leaves
	// of Q-rebalance and chaos's queue rebalances.
	StopGrace string `yaml:"stop_grace"`
	// Control kills, freezes and restarts instances idemcheck did not
	// start, through the user's own commands (control.go).
	Control *Control `yaml:"control"`

	startTimeout time.Duration
	stopGrace    time.Duration
}

// Request is an HTTP request template. {{field}} placeholders in Path and
// Body are filled by idemcheck: order_id, amount, currency, payment_method,
// payment_id, key.
type Request struct {
	Method      string            `yaml:"method"`
	Path        string            `yaml:"path"`
	ContentType string            `yaml:"content_type"`
	Headers     map[string]string `yaml:"headers"`
	Body        string            `yaml:"body"`
	Key         Key               `yaml:"key"`
	// VolatileFields are top-level body fields a client may change between
	// retries of one payment (a timestamp, a trace id): scenario A5 sends a
	// retry with them changed, and only them.
	VolatileFields []string `yaml:"volatile_fields"`
	// Meaning lists what the request means (create only): the fields a
	// mismatch changes one at a time. By default, every one of order_id,
	// amount, currency and payment_method the template uses; a template
	// whose meaning has members of its own (a customer id written in it)
	// lists them all here (meaning.go).
	Meaning []string `yaml:"meaning"`
	// Currencies and PaymentMethods are what intents are drawn from (create
	// only); by default several currencies, one of them zero-decimal, and
	// several of fakepsp's test cards (conform/scenario/meaning.go). A
	// service that takes one currency lists it alone: then no mismatch
	// changes the currency, and the run says so.
	Currencies     []string `yaml:"currencies"`
	PaymentMethods []string `yaml:"payment_methods"`
}

// Key says where the idempotency key goes: a header or a top-level JSON body
// field, and what the keys idemcheck makes look like.
type Key struct {
	Header    string `yaml:"header"`
	BodyField string `yaml:"body_field"`
	// Format of generated keys: uuid (v4, the default: the IETF draft and
	// Stripe recommend it) or random (Prefix plus random letters and digits,
	// Length characters in all).
	Format string `yaml:"format"`
	Prefix string `yaml:"prefix"`
	Length int    `yaml:"length"`
}

// Caller is one authenticated client of the target.
type Caller struct {
	Name    string            `yaml:"name"`
	Headers map[string]string `yaml:"headers"`
}

// Outcomes maps responses to HISTORY.md outcomes: the first matching rule wins.
type Outcomes struct {
	Rules []OutcomeRule `yaml:"rules"`
	// PaymentID is a dotted JSON path (e.g. "id" or "data.payment.id").
	PaymentID string `yaml:"payment_id"`
}

// OutcomeRule matches a status code and, optionally, a JSON field value.
type OutcomeRule struct {
	Status  []int  `yaml:"status"`
	Field   string `yaml:"field"`
	Equals  string `yaml:"equals"`
	Outcome string `yaml:"outcome"`
}

// Effects says how idemcheck observes money movement.
type Effects struct {
	// FakePSP: idemcheck starts fakepsp and gives its URL and key to the target.
	FakePSP bool `yaml:"fakepsp"`
	// FakePSPListen and FakePSPKey fix fakepsp's address and secret key, for
	// a service started before idemcheck and configured with them.
	FakePSPListen string `yaml:"fakepsp_listen"`
	// FakePSPAllowRemote lets fakepsp_listen be a non-loopback address (a
	// service in another container); its API has no auth, so it is opt-in.
	FakePSPAllowRemote bool   `yaml:"fakepsp_allow_remote"`
	FakePSPKey         string `yaml:"fakepsp_secret_key"`
	// PSP is the PSP whose wire the fakepsp idemcheck starts speaks, and so
	// the one the service is written against: stripe (default) or adyen.
	PSP string `yaml:"psp"`
	// FakePSPURL is a fakepsp idemcheck did not start (`idemcheck psp` in a
	// container or pod beside the service): its ground truth and faults are
	// read and armed over its control API.
	FakePSPURL string `yaml:"fakepsp_url"`
	// SearchLag is how stale the fakepsp idemcheck starts lets its search be:
	// each new or changed PaymentIntent reaches search after between half of
	// it and all of it, drawn from the run's seed, as Stripe documents
	// search (eventually consistent, not for read-after-write flows). "0s"
	// makes search read its own writes, kinder than Stripe.
	SearchLag string `yaml:"search_lag"`
	// WebhookDuplicates and WebhookOutOfOrder, on unless "off": the fakepsp
	// idemcheck starts delivers a seeded share of the events twice, and
	// holds a seeded share back until the next overtakes it, as Stripe
	// documents that it may (freedoms.go).
	WebhookDuplicates string       `yaml:"webhook_duplicates"`
	WebhookOutOfOrder string       `yaml:"webhook_out_of_order"`
	Counter           *HTTPCounter `yaml:"http_counter"`
	SQL               *SQLCounter  `yaml:"sql_counter"`
}

// Ledger reads the service's own charges of one intent: a GET answering a
// JSON list, or a SQL query with $1 = the order id. OrderIDField and
// AmountField name the row fields (JSON members or columns).
type Ledger struct {
	URL string `yaml:"url"`
	// List is the dotted path of the array in the answer ("" = the answer is the array).
	List         string `yaml:"list"`
	DSN          string `yaml:"dsn"`
	Query        string `yaml:"query"`
	OrderIDField string `yaml:"order_id_field"`
	AmountField  string `yaml:"amount_field"`
	// Credits, optional, reads the merchant credits of one payment: what
	// the one-credit checks count.
	Credits *Credits `yaml:"credits"`
}

// HasCharges says the ledger reads charges (url or dsn), not only credits.
func (l *Ledger) HasCharges() bool { return l != nil && (l.URL != "" || l.DSN != "") }

// HTTPCounter is a GET endpoint whose JSON field counts charges; with no
// field, or a field holding an array, the elements are counted.
type HTTPCounter struct {
	URL   string `yaml:"url"`
	Field string `yaml:"field"`
}

// SQLCounter is a query returning one integer: the number of charges.
type SQLCounter struct {
	DSN   string `yaml:"dsn"`
	Query string `yaml:"query"`
}

// Proxy names the target's dependencies to front with Toxiproxy links; the
// link address is given to the command as env var <NAME>_ADDR. API, when
// set, is the user's own toxiproxy-server: the links are made there.
type Proxy struct {
	API   string `yaml:"api"`
	Links []Link `yaml:"links"`
	// Bursts is "on" (the default) or "off": chaos's latency bursts on
	// the links (conform/checks/chaos_latency.go).
	Bursts string `yaml:"bursts"`
}

// BurstsOff says the config turns chaos's latency bursts off.
func (c *Config) BurstsOff() bool { return c.Proxy != nil && c.Proxy.Bursts == "off" }

// Link is one Toxiproxy link to a dependency of the target. Upstream is
// host:port, or "fakepsp" for the PSP idemcheck starts.
type Link struct {
	Name     string `yaml:"name"`
	Upstream string `yaml:"upstream"`
	// Listen is the proxy's address on the Toxiproxy server (0.0.0.0:15432
	// in a container the service dials by name); default a free loopback port.
	Listen string `yaml:"listen"`
}

// HasPSP says whether the run charges through a fakepsp: one it starts, or
// one it reaches at fakepsp_url.
func (e Effects) HasPSP() bool { return e.FakePSP || e.FakePSPURL != "" }

// Formats are the rules of the configured PSP's values (nil for a PSP
// that has none, or before Validate named a known one).
func (e Effects) Formats() core.Formats {
	d, err := fakepsp.Lookup(e.PSPName())
	if err != nil {
		return nil
	}
	f, _ := d.(core.Formats)
	return f
}

// PSPName is effects.psp, defaulted.
func (e Effects) PSPName() string {
	if e.PSP == "" {
		return fakepsp.DefaultDialect
	}
	return e.PSP
}

// Durations, parsed by Validate.
func (c *Config) RetryHorizonD() time.Duration { return c.retryHorizon }

// KeyWindowD is the documented key window (0: not documented).
func (c *Config) KeyWindowD() time.Duration { return c.keyWindow }

// TimeoutD bounds one HTTP attempt.
func (c *Config) TimeoutD() time.Duration { return c.timeout }

// SettleD is the quiet period before effects are judged.
func (c *Config) SettleD() time.Duration { return c.settle }

// SearchLagD is effects.search_lag (DefaultSearchLag when unset).
func (c *Config) SearchLagD() time.Duration { return c.searchLag }

// DefaultSearchLag is fakepsp's search lag in a run: long enough that a
// service which reads "not found" as "not charged" meets it on every unknown
// outcome, short enough that one which searches again converges well within
// converge_within.
const DefaultSearchLag = 2 * time.Second

// ConvergeD bounds retrying after a fault until a final answer.
func (c *Config) ConvergeD() time.Duration { return c.converge }

// QuiesceD is the quiet period before the final recount.
func (c *Config) QuiesceD() time.Duration { return c.quiesce }

// StartTimeoutD bounds waiting for a started target to answer.
func (c *Config) StartTimeoutD() time.Duration { return c.Target.startTimeout }

// StopGraceD is the SIGTERM-to-SIGKILL grace of a graceful stop.
func (c *Config) StopGraceD() time.Duration { return c.Target.stopGrace }

// Proto is the effective protocol profile (profile plus overrides).
func (c *Config) Proto() Protocol { return c.proto }

// Line returns the line of a dotted field path, or of its nearest parent.
func (c *Config) Line(path string) int {
	for p := path; p != ""; p = parent(p) {
		if l, ok := c.Positions[p]; ok {
			return l
		}
	}
	return 1
}

func parent(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '.' || p[i] == '[' {
			return p[:i]
		}
	}
	return ""
}
