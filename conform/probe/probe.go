// Package probe is `idemcheck init --probe`: it sends a handful of requests to
// a payment service (a create, a replay of its key, another body under that
// key, concurrent copies, no key, a declined card, a PSP error) and writes the
// `idemcheck run` config whose outcome rules, key placement, protocol
// statuses and profile are what the service actually answered, with comments
// saying what it saw.
//
// The service charges through fakepsp, which the probe starts: the PSP's own
// count of charges, not the service's answers, says whether a replay was
// deduplicated. Either the probe starts the service (Options.Command, as
// `idemcheck run` will), or the service already runs and was configured with
// the fakepsp address and key the probe is told (Options.PSPListen, PSPKey).
package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/fakepsp"
)

// Options say what to probe and how to reach it.
type Options struct {
	// URL is the service's base URL. With Command, ${PORT} in it is the port
	// the probe picks and passes to the command as $PORT.
	URL string
	// Command starts one instance (as target.command); empty: the service runs.
	Command []string
	// Ready is the path polled until the service answers (default "/").
	Ready string
	// StartTimeout bounds waiting for a started command (default 20s).
	StartTimeout time.Duration
	// The create request: method (POST), path (/payments), body template
	// (the starter's) and content type (application/json).
	Method, Path, Body, ContentType string
	// Callers' headers (credentials), one map per caller.
	Callers []map[string]string
	// KeyHeader or KeyBodyField fix where the key goes; unset, the probe
	// tries Idempotency-Key, X-Idempotency-Key, then a body field idempotency_key.
	KeyHeader, KeyBodyField string
	// PSPListen and PSPKey: the fakepsp address and secret key a running
	// service was configured with (PSPKey default sk_test_idemcheck).
	PSPListen, PSPKey string
	// Copies is how many concurrent copies to send (default 4).
	Copies int
	// Timeout bounds one request (default 10s).
	Timeout time.Duration
	// Log gets one line per probe request (nil: none).
	Log io.Writer
	// Webhook, when set, is the handler's path: one signed event of a
	// probed payment goes there, and Credits (a URL with {{order_id}},
	// {{payment_id}} or {{psp_payment_id}}) reads its credits back.
	Webhook, Credits string
	// WebhookSecret signs it for a running service (default whsec_idemcheck,
	// or DefaultAdyenHMACKey for Adyen).
	WebhookSecret string
	// PSP is the PSP the service calls (stripe, adyen): "" learns it from
	// the first request a started command makes to its PSP (stripe for a
	// running service).
	PSP string
}

// DefaultBody is the create body template when none is given.
const DefaultBody = `{"order_id": "{{order_id}}", "amount": {{amount}}, "currency": "{{currency}}", "payment_method": "{{payment_method}}"}`

// DefaultPSPKey is fakepsp's secret key for a running service unless told.
const DefaultPSPKey = "sk_test_idemcheck"

// Error is a probe that could not produce a config: the service is down, or
// answered something no config could describe. The message says what was
// sent, what came back, and what to change.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func fail(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

func (o *Options) defaults() error {
	if o.URL == "" {
		return fail("--probe needs the service's base URL (e.g. http://127.0.0.1:8080)")
	}
	if o.Method == "" {
		o.Method = "POST"
	}
	o.Method = strings.ToUpper(o.Method)
	if o.Path == "" {
		o.Path = "/payments"
	}
	if o.Body == "" {
		o.Body = DefaultBody
	}
	if o.ContentType == "" {
		o.ContentType = "application/json"
	}
	if o.Ready == "" {
		o.Ready = "/"
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 20 * time.Second
	}
	if o.Copies == 0 {
		o.Copies = 4
	}
	if o.Copies < 2 || o.Copies > 64 {
		return fail("--copies %d: must be between 2 and 64", o.Copies)
	}
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Second
	}
	if o.Webhook != "" && !strings.HasPrefix(o.Webhook, "/") {
		return fail("--webhook %q: must be a path starting with /", o.Webhook)
	}
	if o.Credits != "" && o.Webhook == "" {
		return fail("--credits reads the credits the webhook made: it needs --webhook PATH")
	}
	if o.PSP != "" && !slices.Contains(fakepsp.Dialects(), o.PSP) {
		return fail("--psp %q: unknown PSP (supported: %s)", o.PSP, strings.Join(fakepsp.Dialects(), ", "))
	}
	if o.PSP == "" && len(o.Command) == 0 {
		o.PSP = fakepsp.DefaultDialect
	}
	if o.KeyHeader != "" && o.KeyBodyField != "" {
		return fail("--key-header and --key-body-field: give one, not both")
	}
	if len(o.Command) == 0 {
		if strings.Contains(o.URL, "${PORT}") {
			return fail("--probe %s uses ${PORT} but no command follows --: idemcheck picks a port only for a command it starts", o.URL)
		}
		if o.PSPListen == "" {
			return fail("a running service is probed through fakepsp: start it with its PSP at http://127.0.0.1:12111 and key %s, then pass --psp-listen 127.0.0.1:12111 (or give its command after -- and idemcheck starts both)", DefaultPSPKey)
		}
		if o.PSPKey == "" {
			o.PSPKey = DefaultPSPKey
		}
	} else if o.PSPListen != "" || o.PSPKey != "" {
		return fail("--psp-listen and --psp-key are for a running service; a command after -- gets $PSP_URL and $PSP_KEY")
	}
	if f := formats(o.PSP); f != nil && o.PSPKey != "" {
		if msg := f.CheckSecretKey(o.PSPKey); msg != "" {
			return fail("--psp-key %q: %s", o.PSPKey, msg)
		}
	}
	if f := formats(o.PSP); f != nil && o.WebhookSecret != "" {
		if msg := f.CheckWebhookSecret(o.WebhookSecret); msg != "" {
			return fail("--webhook-secret %q: %s", o.WebhookSecret, msg)
		}
	}
	// The template must be one `idemcheck run` accepts: validate it now, so
	// a bad --path or --body is named before any request is sent.
	if _, err := config.Parse("(--probe flags)", []byte(draftYAML(o, placement{Header: "Idempotency-Key"}, o.URL))); err != nil {
		return fail("the create request from the flags is not valid: %v", err)
	}
	return nil
}

// Run probes the service and returns the config text; any error is an *Error.
func Run(ctx context.Context, o Options) (string, error) {
	if err := o.defaults(); err != nil {
		return "", err
	}
	learn := o.PSP == ""
	if learn {
		o.PSP = fakepsp.DefaultDialect
	}
	for {
		o.WebhookSecret = webhookSecretFor(o)
		text, err := runWith(ctx, o, learn)
		var sw *switchPSP
		if errors.As(err, &sw) && learn {
			// The first create reached the PSP on another PSP's route:
			// start over with a fakepsp that speaks what the service does.
			if o.Log != nil {
				fmt.Fprintf(o.Log, "the service calls its PSP at %s: that is %s's API; starting over with fakepsp speaking %s\n", sw.path, sw.psp, sw.psp)
			}
			o.PSP, learn = sw.psp, false
			continue
		}
		return text, err
	}
}

// runWith probes with a fakepsp speaking o.PSP; learning, a first create
// that called another PSP's route comes back as a *switchPSP.
func runWith(ctx context.Context, o Options, learn bool) (string, error) {
	addr := "127.0.0.1:0"
	if o.PSPListen != "" {
		if err := fakepsp.CheckListen(o.PSPListen, false); err != nil {
			return "", fail("--psp-listen %s: %v", o.PSPListen, err)
		}
		addr = o.PSPListen
	}
	psp, err := fakepsp.Start(fakepsp.Config{Dialect: o.PSP, Addr: addr, SecretKey: o.PSPKey, RateLimits: fakepsp.RateLimits{Disabled: true}, WebhookSecret: o.WebhookSecret})
	if err != nil {
		return "", fail("start fakepsp on %s: %v", addr, err)
	}
	defer psp.Close()
	base := o.URL
	if len(o.Command) > 0 {
		t, err := startTarget(ctx, &o, psp)
		if t != nil {
			defer t.stop()
		}
		if err != nil {
			return "", err
		}
		base = t.base
	}
	p := &prober{o: &o, psp: psp, base: strings.TrimRight(base, "/"), learn: learn}
	if err := p.reachable(ctx); err != nil {
		return "", err
	}
	s, err := p.observe(ctx)
	if err != nil {
		return "", err
	}
	var hooks *hookSeen
	if o.Webhook != "" {
		if hooks, err = p.probeWebhook(ctx, s); err != nil {
			return "", err
		}
	}
	if err := psp.ReadError(); err != nil {
		// A call or charge the probe counted from a log it could not
		// read whole: what it would infer rests on evidence it lacks.
		return "", fail("fakepsp's logs on disk: %v", err)
	}
	text := render(&o, s) + renderWebhook(&o, hooks)
	if _, err := config.Parse("(probed config)", []byte(text)); err != nil {
		return "", fail("idemcheck wrote a config it cannot load (a bug; please report it): %v\n%s", err, text)
	}
	return text, nil
}
