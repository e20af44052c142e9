// Package reference is the main job of `idemcheck run`: it starts the
// reference stack (stack/refstack) on the real local servers, with
// idemcheck's fakepsp, and runs every black-box check against it; with a
// mutant switched on, the same run must fail and name the violation.
package reference

import (
	"context"
	_ "embed"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/conform"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/pspfront"
	"github.com/idemcheck/idemcheck/conform/report"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/refstack"
	"github.com/idemcheck/idemcheck/stack/region"
	"github.com/idemcheck/idemcheck/stack/services"
	_ "github.com/idemcheck/idemcheck/targets/all" // this binary can become any tier
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/storytime"
	"github.com/idemcheck/idemcheck/targets/webhook"
	"github.com/idemcheck/idemcheck/targets/worker"
)

//go:embed reference.yaml
var configText string

var storyRE = regexp.MustCompile(`\$\{story ([0-9.]+)\}`)

// ConfigText is the reference API's config with its placeholders filled.
// Without a webhook URL the webhook section is left out (a stack without
// the webhook tier, or the whole stack, whose chaos check delivers itself).
func ConfigText(apiURLs []string) string { return configText2(apiURLs, "", "", false) }

func configText2(apiURLs []string, webhookURL, pgDSN string, consumer bool) string {
	var urls []string
	for _, u := range apiURLs {
		urls = append(urls, fmt.Sprintf("%q", u))
	}
	text := strings.ReplaceAll(configText, "${API_URLS}", strings.Join(urls, ", "))
	if webhookURL == "" {
		text = webhookBlock.ReplaceAllString(text, "")
	}
	if webhookURL == "" || !consumer {
		// The consumer's credits are read through the webhook block's
		// ledger.credits.
		text = consumerBlock.ReplaceAllString(text, "")
	}
	text = strings.NewReplacer("${WEBHOOK_URL}", fmt.Sprintf("%q", webhookURL), "${PG_DSN}", fmt.Sprintf("%q", pgDSN)).Replace(text)
	return storyRE.ReplaceAllStringFunc(text, func(m string) string {
		sec, _ := strconv.ParseFloat(storyRE.FindStringSubmatch(m)[1], 64)
		return storytime.D(sec).String()
	})
}

var (
	webhookBlock  = regexp.MustCompile(`(?s)# webhook-begin.*# webhook-end\n`)
	consumerBlock = regexp.MustCompile(`(?s)# consumer-begin.*# consumer-end\n`)
)

// Config is the idemcheck config that describes the reference API
// (reference.yaml, embedded).
func Config(apiURLs []string) (*config.Config, error) {
	return config.Parse("reference.yaml", []byte(ConfigText(apiURLs)))
}

// configWithWebhook is Config with the webhook tier as the config's webhook
// handler and the ledger's journal as its credits.
func configWithWebhook(apiURLs []string, webhookURL, pgDSN string, consumer bool) (*config.Config, error) {
	return config.Parse("reference.yaml", []byte(configText2(apiURLs, webhookURL, pgDSN, consumer)))
}

// Run starts the servers, fakepsp and the reference stack with the given
// mutants (comma-separated switch names of package mutant; "" for none), runs
// idemcheck against it with o, and stops everything. Without o.HTML the HTML
// report goes to a new directory whose path is printed.
func Run(ctx context.Context, o conform.Options, mutants string) (int, *report.Report) {
	return RunStack(ctx, o, Stack{Mutants: mutants})
}

// Stack says how to run the reference stack.
type Stack struct {
	// Mutants are comma-separated switch names of package mutant.
	Mutants string
	// NoResolver leaves the resolver out: its sweep settles a dead owner's
	// payment with the derived key and so hides a takeover mutant (A3).
	NoResolver bool
	// Services, when set, are running Postgres and Valkey to use instead of
	// starting them (idemcheck bench starts its servers once); they stay up.
	Services *services.Stack
	// Full starts the whole stack behind the API too: Kafka, the outbox
	// relay, the worker and push provider, the connector and the stream
	// job, with fakepsp's webhooks to the webhook tier. A chaos run is
	// always full.
	Full bool
	// NoWebhook leaves the webhook tier out: fakepsp's success event settles
	// a crashed owner's payment first and so hides a takeover or resolver
	// mutant under chaos, as the resolver hides a takeover one.
	NoWebhook bool
}

// RunStack is Run with the stack's options.
func RunStack(ctx context.Context, o conform.Options, sk Stack) (int, *report.Report) {
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	sk.Full = sk.Full || o.Chaos
	// The default stack's consumer checks run against the reference's own
	// workers; the full stack judges its worker behind the API instead.
	queue := !sk.Full && !sk.NoWebhook && wantsQueue(o)
	set, err := mutant.Parse(sk.Mutants)
	tiered := set
	if ws := mutant.Of(worker.TierName, set); err == nil && !sk.Full && len(ws) > 0 {
		// Without the full stack the worker runs only for the consumer checks.
		err = queueMutant(ws, queue)
		tiered = mutant.Without(worker.TierName, set)
	}
	if err == nil {
		err = runsEveryTierOf(tiered, sk.Full, o.Chaos)
	}
	if why := chaosRefuses(set); err == nil && o.Chaos && why != "" {
		// A masked switch would pass chaos silently (killmatrix_kinds.go).
		err = fmt.Errorf("--chaos refuses it: %s", why)
	}
	if err != nil {
		fmt.Fprintf(o.Stderr, "idemcheck run --mutant: %v\n", err)
		return conform.ExitUsage, nil
	}
	if o.HTML == "" {
		dir, err := os.MkdirTemp("", "idemcheck-report-")
		if err != nil {
			fmt.Fprintln(o.Stderr, "idemcheck run:", err)
			return conform.ExitUsage, nil
		}
		o.HTML = dir
	}
	// The API servers reach the PSP through a Toxiproxy link, so the
	// dependency check can lose the PSP's replies on the wire too; in a
	// chaos run the tiers reach their servers through links of their own.
	tp, err := faults.StartToxiproxy()
	if err != nil {
		fmt.Fprintln(o.Stderr, "idemcheck run: start Toxiproxy:", err)
		return conform.ExitUsage, nil
	}
	defer tp.Stop()
	var tl *tierLinks
	if o.Chaos {
		tl = &tierLinks{}
	}
	svc := sk.Services
	if svc == nil {
		so := services.Options{Postgres: true, Valkey: true, Kafka: sk.Full || queue, Log: o.Stderr}
		if tl != nil {
			so.KafkaAdvertise = tl.kafkaAdvertise(tp)
		}
		svc, err = services.Start(ctx, so)
		if err != nil {
			fmt.Fprintf(o.Stderr, "idemcheck run: reference stack unreachable: starting the servers: %v\n", err)
			return conform.ExitUnreachable, nil
		}
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_ = svc.Stop(sctx)
		}()
	}
	if sk.Full && svc.Kafka == nil {
		fmt.Fprintln(o.Stderr, "idemcheck run: the whole reference stack needs Kafka, and the servers given have none")
		return conform.ExitUnreachable, nil
	}
	pc := fakepsp.Config{KeyWindow: 24 * time.Hour, RateLimits: fakepsp.RateLimits{Disabled: true}}
	if !sk.Full && !sk.NoWebhook {
		// The webhook checks wait for the PSP's retries: the schedule that
		// `idemcheck run` gives any service's handler.
		pc.WebhookSchedule = fakepsp.WebhookSchedule{Base: 300 * time.Millisecond, Factor: 2, Horizon: 2 * time.Minute, Timeout: 3 * time.Second}
	}
	psp, err := fakepsp.Start(pc)
	if err != nil {
		fmt.Fprintln(o.Stderr, "idemcheck run: start fakepsp:", err)
		return conform.ExitUsage, nil
	}
	defer psp.Close()
	// The recording front sees every PSP request (attribution by order id,
	// faults that follow one PSP key across the API's own retries).
	front, err := pspfront.Start(psp.URL(), "")
	if err != nil {
		fmt.Fprintln(o.Stderr, "idemcheck run: start the PSP front:", err)
		return conform.ExitUsage, nil
	}
	defer front.Close()
	pspLink, err := tp.Link("PSP", front.Addr())
	if err != nil {
		fmt.Fprintln(o.Stderr, "idemcheck run: Toxiproxy link to fakepsp:", err)
		return conform.ExitUsage, nil
	}
	rc := refstack.Config{
		PostgresDSN: svc.Postgres.Endpoint(), ValkeyAddr: svc.Valkey.Endpoint(),
		PSPURL: "http://" + pspLink.Addr(), PSPKey: psp.SecretKey(), WebhookSecret: psp.WebhookSecret(), Mutants: set,
		NoResolver: sk.NoResolver, NoWebhook: sk.NoWebhook,
	}
	if tl != nil {
		if err := tl.open(tp, svc); err != nil {
			fmt.Fprintln(o.Stderr, "idemcheck run: Toxiproxy links to the tiers' servers:", err)
			return conform.ExitUsage, nil
		}
		rc.TierPostgresDSN, rc.TierValkeyAddr = tl.pgDSN, tl.valkey
	}
	st, err := refstack.Start(ctx, rc)
	if err != nil {
		fmt.Fprintf(o.Stderr, "idemcheck run: reference stack unreachable: %v\n", err)
		return conform.ExitUnreachable, nil
	}
	defer st.Stop()
	var f *full
	if sk.Full {
		// A chaos run has a standby Region to fail over to.
		var standby *faults.Toxiproxy
		if o.Chaos {
			standby = tp
		}
		f, err = startFull(ctx, st, svc, psp, set, standby, o.Stderr)
		defer f.stop()
		if err != nil {
			fmt.Fprintf(o.Stderr, "idemcheck run: reference stack unreachable: the tiers behind the API: %v\n", err)
			return conform.ExitUnreachable, nil
		}
		o.PSPWebhooks = st.Webhook != nil
		o.Behind = f.behind
	}
	var apis []string
	var inst []faults.Proc
	for _, t := range st.APIs {
		apis = append(apis, t.URL)
		inst = append(inst, stackProc{st: st, t: t})
	}
	urls := apis
	if f != nil && f.rg != nil {
		// Every request goes through the router, which moves R1's callers
		// to R2 when it takes over.
		urls, inst = []string{f.rg.router.URL}, nil
	}
	cfg, err := Config(urls)
	if st.Webhook != nil && !sk.Full {
		// The webhook tier is the config's webhook handler: the W checks
		// deliver to it and read the journal's credits.
		cfg, err = configWithWebhook(urls, st.Webhook.URL+webhook.Path, st.DSN, queue)
		if err == nil && queue {
			if svc.Kafka != nil {
				cfg.Consumer.Brokers = []string{svc.Kafka.Endpoint()}
			}
			o.StartConsumers = consumerStarter(st, mutant.Of(worker.TierName, set))
		}
		wh := st.Webhook
		o.WebhookProc = stackProc{st: st, t: wh}
		o.WebhookReady = func(ctx context.Context) error { return ready(ctx, wh.URL) }
	}
	if err != nil {
		fmt.Fprintf(o.Stderr, "idemcheck run: reference config: %v\n", err)
		return conform.ExitUsage, nil
	}
	if sk.Full {
		severalMerchants(cfg)
	}
	label := "reference"
	if sk.Full {
		label = "full reference"
	}
	if sk.Mutants != "" {
		label += " with mutant " + sk.Mutants
	}
	fmt.Fprintf(o.Stderr, "idemcheck run: %s stack up: APIs %s, fakepsp %s, logs %s\n", label, strings.Join(apis, ", "), psp.URL(), st.LogDir())
	o.Cfg, o.PSP, o.Front, o.Bases, o.Instances = cfg, psp, front, urls, inst
	o.Rerun = "idemcheck run --reference"
	if len(set) > 0 {
		o.Rerun += " --mutant " + set.String()
	}
	o.WaitReady = func(ctx context.Context, i int) error { return ready(ctx, urls[i]) }
	o.Advance = st.AdvanceClocks
	o.Links = []scenario.DepLink{{Name: "PSP", Link: pspLink}}
	if tl != nil {
		o.BurstLinks = tl.links
	}
	o.Tiers = catalogueTiers(st)
	if f != nil && f.rg != nil {
		o.Tiers, o.Regions = f.rg.tiers(), f.rg.system()
		fmt.Fprintf(o.Stderr, "idemcheck run: standby Region R2 follows R1 %.1f story s behind (Postgres %s, Valkey %s), router %s\n",
			region.Lag, f.rg.svc2.Postgres.Endpoint(), f.rg.svc2.Valkey.Endpoint(), f.rg.router.URL)
	}
	if f != nil {
		o.Tiers = f.withWorkerSettle(o.Tiers)
	}
	return conform.Run(ctx, o)
}

func ready(ctx context.Context, base string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		req, _ := http.NewRequestWithContext(ctx, "GET", base+"/payments/none", nil)
		resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: time.Second}).Do(req)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("%s did not answer: %w", base, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stackTiers are the tiers `run --reference` starts; idemcheck itself is the
// client, so the phone is not one of them.
var stackTiers = map[string]bool{"api": true, "lb": true, "resolver": true, "webhook": true}

// runsEveryTierOf refuses a switch whose tier this stack never starts: the run
// would pass with the guard "off" in a process that does not exist, a pass
// that proves nothing. Those mutants are caught by their suites instead.
func runsEveryTierOf(set mutant.Set, full, regions bool) error {
	started := map[string]bool{}
	for k := range stackTiers {
		started[k] = true
	}
	if full {
		for _, k := range fullTiers {
			started[k] = true
		}
	}
	for s := range set {
		e := mutant.Lookup(s)
		if e == nil {
			continue
		}
		if e.Tier == "router" {
			return fmt.Errorf("switch %q turns off a guard of the router, which only matters when two Regions serve at once (%s); the chaos run's R2 is a standby that serves only after the failover, so the run would pass with the guard off: suites/regions catches it",
				s, strings.Join(e.Scenarios, ", "))
		}
		if regionOnly(e) && !regions {
			return fmt.Errorf("switch %q turns off a guard of the %s tier that only a second Region reaches (%s): `run --reference` starts R2 with --chaos only, so without it the run would pass with the guard off",
				s, e.Tier, strings.Join(e.Scenarios, ", "))
		}
		if !startsAll(started, e.Tier) {
			return fmt.Errorf("switch %q turns off a guard of the %s tier, which `run --reference` does not start (it runs %s); its scenarios (%s) are caught by the suites",
				s, e.Tier, strings.Join(sortedKeys(started), ", "), strings.Join(e.Scenarios, ", "))
		}
	}
	return nil
}

// regionOnly says whether a switch's guard matters only across Regions: its
// scenarios are all of group G.
func regionOnly(e *mutant.Entry) bool {
	for _, sc := range e.Scenarios {
		if !strings.HasPrefix(sc, "G") {
			return false
		}
	}
	return len(e.Scenarios) > 0
}

// startsAll says whether every tier of a switch's tier list ("api,resolver")
// is started.
func startsAll(started map[string]bool, tiers string) bool {
	for _, t := range strings.Split(tiers, ",") {
		if !started[strings.TrimSpace(t)] {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
