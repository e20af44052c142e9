package config

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Webhook is the service's handler of the PSP's events: fakepsp registers
// it and delivers the events of the payments the run makes, signed as
// Stripe signs them, and the webhook checks (W-*) send it duplicates,
// reordered, late, concurrent and forged copies.
type Webhook struct {
	// Path on each instance that receives the events (/webhooks/stripe);
	// or URL, an absolute URL, for a handler on another address.
	Path string `yaml:"path"`
	URL  string `yaml:"url"`
	// Events are the event types the endpoint is subscribed to, in
	// Stripe's names ("payment_intent.succeeded", "charge.*"); default
	// every event ("*"), as an endpoint subscribed to all gets them.
	Events []string `yaml:"events"`
	// SecretEnv names the variable a started command gets the signing
	// secret in (default PSP_WEBHOOK_SECRET).
	SecretEnv string `yaml:"secret_env"`
	// Secret fixes the signing secret ("whsec_..."), for a service
	// started before idemcheck and configured with it.
	Secret string `yaml:"secret"`
	// Tolerance is the signature age the handler accepts (default 300s,
	// what Stripe's libraries accept): forged copies are signed outside it.
	Tolerance string `yaml:"tolerance"`
	// DedupWindow is how long the handler documents that it remembers an
	// event id (0: not documented); the late duplicate is sent after it.
	DedupWindow string `yaml:"dedup_window"`
	// Timeout bounds one delivery (default 3s): an answer later than that
	// is a lost acknowledgement, and the delivery is retried.
	Timeout string `yaml:"timeout"`

	tolerance, dedupWindow, timeout time.Duration
}

// Credits reads the merchant credits the service made for one payment:
// a GET answering a JSON list, or a SQL query. A refund's row carries a
// negative amount.
type Credits struct {
	// URL may use {{order_id}}, {{payment_id}} (the service's id, from the
	// create's answer) and {{psp_payment_id}} (the PSP's PaymentIntent id).
	URL string `yaml:"url"`
	// List is the dotted path of the array in the answer ("" = the answer is the array).
	List string `yaml:"list"`
	DSN  string `yaml:"dsn"`
	// Query selects one payment's rows with $1 = the order id, $2 = the
	// service's payment id, $3 = the PSP's PaymentIntent id (any of them).
	Query string `yaml:"query"`
	// AmountField names the signed amount of a row (default amount).
	AmountField string `yaml:"amount_field"`
}

// ToleranceD is the handler's signature tolerance.
func (w *Webhook) ToleranceD() time.Duration { return w.tolerance }

// DedupWindowD is the documented dedup window (0: not documented).
func (w *Webhook) DedupWindowD() time.Duration { return w.dedupWindow }

// TimeoutD bounds one delivery.
func (w *Webhook) TimeoutD() time.Duration { return w.timeout }

func (v *validator) webhook() {
	w := v.c.Webhook
	if w == nil {
		return
	}
	switch {
	case (w.Path == "") == (w.URL == ""):
		v.bad("webhook", "set path (on each instance) or url (absolute), not both")
	case w.Path != "" && !strings.HasPrefix(w.Path, "/"):
		v.bad("webhook.path", "must start with /, got %q", w.Path)
	case w.URL != "":
		if u, err := url.Parse(portless(w.URL)); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			v.bad("webhook.url", "%q is not an http(s) URL", w.URL)
		}
	}
	if len(w.Events) == 0 {
		w.Events = []string{"*"}
	}
	formats := v.c.Effects.Formats()
	for i, e := range w.Events {
		if formats != nil {
			if msg := formats.CheckEventType(e); msg != "" {
				v.bad(fmt.Sprintf("webhook.events[%d]", i), "%s", msg)
			}
		}
	}
	if w.SecretEnv == "" {
		w.SecretEnv = "PSP_WEBHOOK_SECRET"
	} else if !regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`).MatchString(w.SecretEnv) {
		v.bad("webhook.secret_env", "%q is not an environment variable name", w.SecretEnv)
	}
	if formats != nil && w.Secret != "" {
		if msg := formats.CheckWebhookSecret(w.Secret); msg != "" {
			v.bad("webhook.secret", "%s", msg)
		}
	}
	if !v.c.Effects.FakePSP {
		v.bad("webhook", "needs effects.fakepsp: true (fakepsp raises and delivers the events; idemcheck holds and redelivers them in the fakepsp it starts, not in one at fakepsp_url)")
	}
	v.dur("webhook.tolerance", w.Tolerance, 300*time.Second, &w.tolerance)
	v.dur("webhook.dedup_window", w.DedupWindow, 0, &w.dedupWindow)
	v.dur("webhook.timeout", w.Timeout, 3*time.Second, &w.timeout)
	if w.tolerance == 0 {
		v.bad("webhook.tolerance", "must be positive: a handler that accepts any signature age accepts replays")
	}
}

func (v *validator) credits() {
	if v.c.Ledger == nil || v.c.Ledger.Credits == nil {
		return
	}
	v.creditsRead("ledger.credits", v.c.Ledger.Credits)
}

// creditsRead checks one credits read (ledger.credits, consumer.credits).
func (v *validator) creditsRead(field string, c *Credits) {
	if (c.URL == "") == (c.DSN == "") {
		v.bad(field, "set url (a GET answering a JSON list) or dsn and query (SQL), not both")
	}
	if c.URL != "" {
		if u, err := url.Parse(portless(c.URL)); err != nil || u.Host == "" {
			v.bad(field+".url", "%q is not a URL", c.URL)
		}
		if !slices.ContainsFunc([]string{"order_id", "payment_id", "psp_payment_id"}, func(p string) bool { return strings.Contains(c.URL, "{{"+p+"}}") }) {
			v.bad(field+".url", "must name the payment with {{order_id}}, {{payment_id}} or {{psp_payment_id}}: idemcheck reads one payment's credits")
		}
	}
	if c.DSN != "" && !regexp.MustCompile(`\$[123]\b`).MatchString(c.Query) {
		v.bad(field+".query", "must select one payment's rows with $1 (order id), $2 (payment id) or $3 (PSP payment id)")
	}
	if c.AmountField == "" {
		c.AmountField = "amount"
	}
}
