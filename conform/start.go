package conform

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/pspfront"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/internal/logtail"
)

// targetRun is everything started for one run; stop undoes it in reverse.
type targetRun struct {
	e     *scenario.Env
	procs []*faults.Process
	undo  []func()
}

func (tg *targetRun) stop() {
	for i := len(tg.undo) - 1; i >= 0; i-- {
		tg.undo[i]()
	}
}

func (tg *targetRun) logs() []string {
	var out []string
	for _, p := range tg.procs {
		out = append(out, p.LogPath())
	}
	return out
}

// printTails shows the end of each started instance's output.
func (tg *targetRun) printTails(w io.Writer) {
	for _, p := range tg.procs {
		fmt.Fprintf(w, "idemcheck run: last lines of %s (%s):\n%s", p.Name(), p.LogPath(), logtail.Indented(p.LogPath(), 15, "  "))
	}
}

// startTarget starts what the config asks for: fakepsp behind the recording
// front, Toxiproxy links, the target's processes; it waits until every
// instance answers. It returns a nil env and the exit code when it cannot.
func startTarget(ctx context.Context, cfg *config.Config, o Options, tmp, logDir string) (*targetRun, int) {
	tg := &targetRun{}
	stateDir := tmp + "/state"
	_ = os.MkdirAll(stateDir, 0o755)
	_ = os.MkdirAll(logDir, 0o755)
	env := map[string]string{}
	for k, v := range o.Env {
		env[k] = v
	}
	e := &scenario.Env{Cfg: cfg, MaxWait: o.MaxWait, Seed: o.Seed, Advance: o.Advance, Links: o.Links, BurstLinks: o.BurstLinks,
		Tiers: o.Tiers, PSPWebhooks: o.PSPWebhooks, Behind: o.Behind, ChaosFaults: o.ChaosFaults,
		Regions: o.Regions, Run: runNonce(), Progress: o.Stderr}
	if !o.Quiet {
		e.Log = o.Stderr
	}
	// First in, so last undone: the run's reports are written by then.
	tg.undo = append(tg.undo, func() { _ = e.Close() })
	tg.undo = append(tg.undo, func() {
		if e.TP != nil {
			_ = e.TP.Stop()
		}
	})
	switch {
	case cfg.Effects.FakePSP && o.PSP != nil:
		e.PSP, e.Local, e.Front, e.Effects = o.PSP, o.PSP, o.Front, pspEffects{o.PSP}
	case cfg.Effects.FakePSP:
		pc := fakepsp.Config{Dialect: cfg.Effects.PSPName(), RateLimits: fakepsp.RateLimits{Disabled: true}, SecretKey: cfg.Effects.FakePSPKey,
			SearchLag: cfg.SearchLagD(), SearchSeed: o.Seed}
		if w := cfg.Webhook; w != nil {
			// The PSP's own retry schedule, scaled to a run (Stripe's first
			// retry a third of a second after a failed delivery, doubling).
			pc.WebhookSecret = w.Secret
			pc.WebhookSchedule = fakepsp.RunSchedule(pc.Dialect, w.TimeoutD())
			pc.WebhookFreedoms = cfg.WebhookFreedoms(o.Seed)
		}
		psp, err := fakepsp.Start(pc)
		if err != nil {
			fmt.Fprintln(o.Stderr, "idemcheck run: start fakepsp:", err)
			return tg, ExitUsage
		}
		tg.undo = append(tg.undo, func() { _ = psp.Close() })
		// The service reaches fakepsp through the front, on the address the
		// user fixed (fakepsp_listen) when there is one.
		if w := fakepsp.RemoteWarning(cfg.Effects.FakePSPListen); cfg.Effects.FakePSPListen != "" && w != "" {
			fmt.Fprintln(o.Stderr, "idemcheck run:", w)
		}
		front, err := pspfront.Start(psp.URL(), cfg.Effects.FakePSPListen)
		if err != nil {
			fmt.Fprintln(o.Stderr, "idemcheck run: start the PSP front:", err)
			return tg, ExitUsage
		}
		tg.undo = append(tg.undo, func() { _ = front.Close() })
		e.PSP, e.Local, e.Front, e.Effects = psp, psp, front, pspEffects{psp}
		env["PSP_URL"], env["PSP_KEY"] = front.URL(), psp.SecretKey()
		fmt.Fprintf(o.Stderr, "idemcheck run: fakepsp (%s) at %s, secret key %s (give both to the service; a started command gets $PSP_URL and $PSP_KEY)\n", pc.Dialect, front.URL(), psp.SecretKey())
		fmt.Fprintf(o.Stderr, "idemcheck run: %s\n", SearchLagWords(cfg.SearchLagD()))
		if w := cfg.Webhook; w != nil {
			env[w.SecretEnv] = psp.WebhookSecret()
			fmt.Fprintf(o.Stderr, "idemcheck run: webhook signing secret %s (a started command gets $%s)\n", psp.WebhookSecret(), w.SecretEnv)
			fmt.Fprintf(o.Stderr, "idemcheck run: %s (seed %d)\n", cfg.FreedomsWords(), o.Seed)
		}
	case cfg.Effects.FakePSPURL != "":
		psp, err := fakepsp.Dial(ctx, cfg.Effects.FakePSPURL)
		if err != nil {
			fmt.Fprintf(o.Stderr, "%s:%d: effects.fakepsp_url: %v\n", cfg.File, cfg.Line("effects.fakepsp_url"), err)
			return tg, ExitUnreachable
		}
		notes, err := psp.Sweep(ctx)
		for _, n := range notes {
			fmt.Fprintln(o.Stderr, "idemcheck run:", n)
		}
		if err != nil {
			fmt.Fprintf(o.Stderr, "%s:%d: effects.fakepsp_url: %v\n", cfg.File, cfg.Line("effects.fakepsp_url"), err)
			return tg, ExitUnreachable
		}
		e.PSP, e.Effects = psp, pspEffects{psp}
		env["PSP_URL"], env["PSP_KEY"] = psp.URL(), psp.SecretKey()
		fmt.Fprintf(o.Stderr, "idemcheck run: fakepsp at %s (not started by idemcheck; secret key %s): its ground truth and faults over its control API\n", psp.URL(), psp.SecretKey())
	case cfg.Effects.Counter != nil:
		e.Effects = httpCounter{cfg.Effects.Counter}
	case cfg.Effects.SQL != nil:
		e.Effects = sqlCounter{cfg.Effects.SQL}
	}
	undoLinks, code := links(cfg, e, env, tmp, o.Stderr)
	if tg.undo = append(tg.undo, undoLinks); code != 0 {
		return tg, code
	}
	if cfg.Consumer != nil {
		undo, code := startQueue(ctx, cfg, o, e, env)
		if tg.undo = append(tg.undo, undo); code != 0 {
			return tg, code
		}
	}
	bases := cfg.Target.BaseURLs
	if o.Bases != nil {
		bases = o.Bases
	}
	e.Procs = o.Instances
	expand := func(s string) string { return s }
	if len(cfg.Target.Command) > 0 && o.Bases == nil {
		wd, err := startWatchdog(tmp)
		if err != nil {
			fmt.Fprintln(o.Stderr, "idemcheck run: start the process watchdog:", err)
			return tg, ExitUsage
		}
		tg.undo = append(tg.undo, wd.stop)
		st, err := startTargets(cfg, env, stateDir, logDir, wd)
		tg.undo = append(tg.undo, st.stop)
		tg.procs = st.procs
		if err != nil {
			fmt.Fprintf(o.Stderr, "idemcheck run: target unreachable: %v\n", err)
			return tg, ExitUnreachable
		}
		bases, expand = st.bases, st.expand
		for i, p := range st.procs {
			// WaitReady is set below; a restart reads it when it runs.
			e.Procs = append(e.Procs, proc{p: p, base: bases[i], wd: wd, grace: cfg.StopGraceD(), ready: func(ctx context.Context) error { return e.WaitReady(ctx, i) }})
		}
		if c, ok := e.Effects.(httpCounter); ok {
			// The counter may live on the started service's own port.
			cc := *c.c
			cc.URL = expand(cc.URL)
			e.Effects = httpCounter{&cc}
		}
	}
	if l := cfg.Ledger; l.HasCharges() {
		ll := *l
		ll.URL = expand(ll.URL)
		e.Ledger = ledgerReader{&ll}
	}
	if cfg.Ledger != nil && cfg.Ledger.Credits != nil {
		c := *cfg.Ledger.Credits
		c.URL = expand(c.URL)
		e.Credits = creditReader{&c}
	}
	if e.Queue != nil && cfg.Consumer.Credits != nil {
		c := *cfg.Consumer.Credits
		c.URL = expand(c.URL)
		e.Queue.Credits = creditReader{&c}
	}
	d := driver.New(cfg, bases)
	e.D = d
	if c := cfg.Target.Control; c != nil && len(e.Procs) == 0 {
		for i := range bases {
			// WaitReady is set below; a restart reads it when it runs.
			e.Procs = append(e.Procs, &controlProc{c: c, i: i, base: bases[i], path: cfg.Target.Ready,
				ready: func(ctx context.Context) error { return e.WaitReady(ctx, i) }})
		}
	}
	ready := cfg.Target.Ready
	if ready == "" {
		ready = "/"
	}
	e.WaitReady = o.WaitReady
	if e.WaitReady == nil {
		e.WaitReady = func(ctx context.Context, i int) error {
			var p *faults.Process
			if i < len(tg.procs) {
				p = tg.procs[i]
			}
			return waitReady(ctx, func(ctx context.Context) error { return d.Reachable(ctx, bases[i], ready) }, p, cfg.StartTimeoutD())
		}
	}
	for i, b := range bases {
		timeout := 2 * time.Second
		var p *faults.Process
		if i < len(tg.procs) {
			timeout, p = cfg.StartTimeoutD(), tg.procs[i]
		}
		err := waitReady(ctx, func(ctx context.Context) error { return d.Reachable(ctx, b, ready) }, p, timeout)
		if err != nil {
			fmt.Fprintf(o.Stderr, "idemcheck run: target unreachable: GET %s%s: %v\n", strings.TrimRight(b, "/"), ready, err)
			tg.printTails(o.Stderr)
			return tg, ExitUnreachable
		}
	}
	if cfg.Webhook != nil && e.Local != nil {
		if err := startHooks(cfg, e, bases, expand, o.WebhookProc, o.WebhookReady, o.Stderr); err != nil {
			fmt.Fprintf(o.Stderr, "%s:%d: webhook: %v\n", cfg.File, cfg.Line("webhook"), err)
			return tg, ExitUsage
		}
	}
	tg.e = e
	return tg, 0
}

// links fronts the target's own dependencies with Toxiproxy links.
// runNonce draws what sets this run's orders and keys apart from an
// earlier run's with the same seed.
func runNonce() uint32 {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return binary.BigEndian.Uint32(b[:])%999999 + 1
}

func links(cfg *config.Config, e *scenario.Env, env map[string]string, tmp string, stderr io.Writer) (func(), int) {
	if cfg.Proxy == nil || len(cfg.Proxy.Links) == 0 {
		return func() {}, 0
	}
	var link func(l config.Link, up string) (*faults.Link, error)
	blind, undo := "", func() {}
	if api := cfg.Proxy.API; api != "" {
		rt, err := faults.DialToxiproxy(api)
		if err != nil {
			fmt.Fprintf(stderr, "%s:%d: toxiproxy.api: %v\n", cfg.File, cfg.Line("toxiproxy.api"), err)
			return undo, ExitUsage
		}
		undo = func() {
			if err := rt.Stop(); err != nil {
				fmt.Fprintln(stderr, "idemcheck run:", err)
			}
		}
		if err := rt.StartSweeper(tmp); err != nil {
			fmt.Fprintln(stderr, "idemcheck run:", err)
			return undo, ExitUsage
		}
		if blind = rt.Blind(); blind != "" {
			fmt.Fprintf(stderr, "idemcheck run: warning: %s (S-deps is inconclusive without it)\n", blind)
		}
		link = func(l config.Link, up string) (*faults.Link, error) {
			lk, notes, err := rt.Link(l.Name, l.Listen, up)
			for _, n := range notes {
				fmt.Fprintln(stderr, "idemcheck run:", n)
			}
			return lk, err
		}
	} else {
		tp, err := e.Proxy()
		if err != nil {
			fmt.Fprintln(stderr, "idemcheck run: start Toxiproxy:", err)
			return undo, ExitUsage
		}
		link = func(l config.Link, up string) (*faults.Link, error) {
			if l.Listen != "" {
				return tp.LinkOn(l.Name, l.Listen, up)
			}
			return tp.Link(l.Name, up)
		}
	}
	for _, l := range cfg.Proxy.Links {
		up := l.Upstream
		if up == "fakepsp" {
			up = e.PSPAddr()
		}
		lk, err := link(l, up)
		if err != nil {
			fmt.Fprintf(stderr, "%s:%d: toxiproxy.links: %v\n", cfg.File, cfg.Line("toxiproxy.links"), err)
			return undo, ExitUsage
		}
		env[strings.ToUpper(l.Name)+"_ADDR"] = lk.Addr()
		e.Links = append(e.Links, scenario.DepLink{Name: l.Name, Link: lk, Blind: blind})
		fmt.Fprintf(stderr, "idemcheck run: Toxiproxy link %s: %s -> %s (point the service at $%s_ADDR)\n", lk.Name(), lk.Addr(), up, strings.ToUpper(l.Name))
	}
	return undo, 0
}

// SearchLagWords says how fakepsp's search behaves in this run, for the
// console and the report.
func SearchLagWords(lag time.Duration) string {
	if lag <= 0 {
		return "fakepsp's search reads its own writes (effects.search_lag: 0s), kinder than Stripe's, whose search is eventually consistent"
	}
	return fmt.Sprintf("fakepsp's search is eventually consistent, as Stripe's: a new or changed PaymentIntent reaches search after %v to %v, drawn per object from the seed; a retrieve by id is immediate (effects.search_lag)", lag/2, lag)
}
