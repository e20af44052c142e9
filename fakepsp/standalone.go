package fakepsp

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// RunStandalone is `idemcheck psp`: it parses args, starts a PSP, prints its
// base URL and keys on stdout as key=value lines, and serves until ctx ends.
// It returns the process exit code: 0 after a clean stop, 2 for bad input, 1
// when the PSP cannot start.
func RunStandalone(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("idemcheck psp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: idemcheck psp [--listen 127.0.0.1:PORT] [--allow-remote] [flags]")
		fmt.Fprintln(stderr, "Runs the fake PSP (Stripe's wire, or --dialect's) until SIGINT/SIGTERM. Prints url=, secret_key=, webhook_secret=.")
		fs.PrintDefaults()
	}
	var cfg Config
	fs.StringVar(&cfg.Dialect, "dialect", DefaultDialect, "the PSP whose wire it speaks: "+strings.Join(Dialects(), ", "))
	fs.StringVar(&cfg.Addr, "listen", "127.0.0.1:0", "address to listen on (loopback unless --allow-remote)")
	fs.BoolVar(&cfg.AllowRemote, "allow-remote", false, "allow a non-loopback --listen address such as 0.0.0.0:12111 (containers); prints a warning")
	fs.DurationVar(&cfg.KeyWindow, "key-window", 24*time.Hour, "how long an idempotency key's result is kept")
	fs.DurationVar(&cfg.WebhookSchedule.Base, "webhook-base", time.Minute, "first webhook retry backoff")
	fs.Float64Var(&cfg.WebhookSchedule.Factor, "webhook-factor", 2, "webhook backoff growth factor (>= 1)")
	fs.DurationVar(&cfg.WebhookSchedule.Horizon, "webhook-horizon", 72*time.Hour, "stop retrying a webhook this long after its first attempt")
	fs.DurationVar(&cfg.WebhookSchedule.Timeout, "webhook-timeout", 10*time.Second, "timeout of one webhook attempt")
	fs.Float64Var(&cfg.RateLimits.PerAccount, "rate-account", 100, "requests per second per account")
	fs.Float64Var(&cfg.RateLimits.PerEndpoint, "rate-endpoint", 25, "requests per second per account and endpoint")
	fs.BoolVar(&cfg.RateLimits.Disabled, "no-rate-limit", false, "disable rate limiting")
	fs.StringVar(&cfg.SecretKey, "secret-key", "", "secret key of the first account (sk_test_...; default random)")
	fs.StringVar(&cfg.WebhookSecret, "webhook-secret", "", "webhook signing secret (whsec_...; default random)")
	fs.DurationVar(&cfg.SearchLag, "search-lag", 2*time.Second, "search is eventually consistent, as Stripe's: a new or changed PaymentIntent reaches search after half of this to all of it (0: at once, kinder than Stripe)")
	fs.Uint64Var(&cfg.SearchSeed, "seed", 0, "seed of the per-object search lag and of the webhook freedoms (default: from the clock, printed)")
	dups := fs.Bool("webhook-duplicates", true, fmt.Sprintf("deliver %.0f%% of the events a second time, as Stripe may (--webhook-duplicates=false: never, kinder than Stripe)", 100*DefaultWebhookDuplicates))
	order := fs.Bool("webhook-out-of-order", true, fmt.Sprintf("deliver %.0f%% of the events %v to %v late, so later events overtake them, as Stripe does not promise order (--webhook-out-of-order=false: in order, kinder than Stripe)", 100*DefaultWebhookOutOfOrder, DefaultWebhookLate/2, DefaultWebhookLate))
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "idemcheck psp: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	d, err := core.Lookup(cfg.Dialect)
	if err != nil {
		fmt.Fprintf(stderr, "idemcheck psp: --dialect: %v\n", err)
		return 2
	}
	retries := false
	fs.Visit(func(f *flag.Flag) {
		retries = retries || f.Name == "webhook-base" || f.Name == "webhook-factor" || f.Name == "webhook-horizon"
	})
	if _, own := d.Webhooks().(interface{ Schedule() core.Schedule }); own && !retries {
		// The dialect documents its own retry table (Adyen's): the Stripe
		// defaults of the flags give way to it, the timeout stays.
		cfg.WebhookSchedule = WebhookSchedule{Timeout: cfg.WebhookSchedule.Timeout}
	}
	if msg := checkStandalone(cfg, d); msg != "" {
		fmt.Fprintln(stderr, "idemcheck psp: "+msg)
		return 2
	}
	if err := CheckListen(cfg.Addr, cfg.AllowRemote); err != nil {
		fmt.Fprintf(stderr, "idemcheck psp: --listen: %v: add --allow-remote to listen beyond loopback\n", err)
		return 2
	}
	if w := RemoteWarning(cfg.Addr); w != "" {
		fmt.Fprintln(stderr, "idemcheck psp: "+w)
	}
	if cfg.SearchSeed == 0 {
		cfg.SearchSeed = uint64(time.Now().UnixNano())
	}
	cfg.WebhookFreedoms = Freedoms(*dups, *order, cfg.SearchSeed)
	p, err := Start(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "idemcheck psp: %v\n", err)
		return 1
	}
	if cfg.SearchLag > 0 {
		fmt.Fprintf(stderr, "idemcheck psp: search is eventually consistent: a new or changed PaymentIntent reaches search after %v to %v (seed %d; --search-lag 0 turns it off)\n", cfg.SearchLag/2, cfg.SearchLag, cfg.SearchSeed)
	}
	fmt.Fprintf(stderr, "idemcheck psp: %s (seed %d)\n", cfg.WebhookFreedoms.Words("--webhook-duplicates=false", "--webhook-out-of-order=false"), cfg.SearchSeed)
	fmt.Fprintf(stdout, "url=%s\nsecret_key=%s\nwebhook_secret=%s\n", p.URL(), p.SecretKey(), p.WebhookSecret())
	if cfg.Dialect == "stripe" {
		fmt.Fprintf(stderr, "idemcheck psp: serving Stripe v1 at %s/v1/ and control at %s/_psp/; stop with SIGINT or SIGTERM\n", p.URL(), p.URL())
	} else {
		fmt.Fprintf(stderr, "idemcheck psp: serving %s's API at %s/ and control at %s/_psp/; stop with SIGINT or SIGTERM\n", cfg.Dialect, p.URL(), p.URL())
	}
	<-ctx.Done()
	if err := p.Close(); err != nil {
		fmt.Fprintf(stderr, "idemcheck psp: close: %v\n", err)
		return 1
	}
	return 0
}

func checkStandalone(cfg Config, d core.Dialect) string {
	if f, ok := d.(core.Formats); ok {
		if msg := f.CheckSecretKey(cfg.SecretKey); cfg.SecretKey != "" && msg != "" {
			return "--secret-key " + msg
		}
		if msg := f.CheckWebhookSecret(cfg.WebhookSecret); cfg.WebhookSecret != "" && msg != "" {
			return "--webhook-secret " + msg
		}
	}
	own := cfg.WebhookSchedule.Base == 0
	switch {
	case cfg.KeyWindow <= 0:
		return "--key-window must be positive"
	case cfg.WebhookSchedule.Timeout <= 0 || !own && (cfg.WebhookSchedule.Base <= 0 || cfg.WebhookSchedule.Horizon <= 0):
		return "--webhook-base, --webhook-horizon and --webhook-timeout must be positive"
	case !own && cfg.WebhookSchedule.Factor < 1:
		return "--webhook-factor must be at least 1"
	case !cfg.RateLimits.Disabled && (cfg.RateLimits.PerAccount <= 0 || cfg.RateLimits.PerEndpoint <= 0):
		return "--rate-account and --rate-endpoint must be positive (or use --no-rate-limit)"
	case cfg.SearchLag < 0:
		return "--search-lag must not be negative"
	}
	return ""
}
