package conform

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/report"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/faults"
)

// Exit codes of `idemcheck run`.
const (
	ExitPass        = 0
	ExitViolation   = 1
	ExitUsage       = 2
	ExitUnreachable = 3
)

// Options is one `idemcheck run`.
type Options struct {
	Config string
	// Cfg, when set, is used instead of reading Config (tests, the reference job).
	Cfg    *config.Config
	Strict bool
	JSON   string
	JUnit  string
	HTML   string
	// Only runs the checks with these IDs (all when empty).
	Only []string
	// Seed drives every random choice; 0 means "draw one and print it".
	Seed     uint64
	Chaos    bool
	Duration time.Duration
	// MaxWait bounds waits for key windows and retry horizons (default 30s).
	MaxWait time.Duration
	Stdout  io.Writer
	Stderr  io.Writer
	// Quiet drops the per-request log lines (progress lines stay).
	Quiet bool
	// Env adds variables to the started target's environment.
	Env map[string]string

	// A target idemcheck does not start from target.command (the reference
	// job) hands over its parts here.
	PSP       *fakepsp.PSP
	Bases     []string
	Instances []scenario.Instance
	WaitReady func(ctx context.Context, i int) error
	// Advance moves the target's clocks to an offset (long windows unslept).
	Advance func(offset time.Duration) error
	// Links front the target's dependencies (its PSP, its database).
	Links []scenario.DepLink
}

// Run performs a whole run and returns the exit code and the report (nil
// when the run never started: config error, unreachable target).
func Run(ctx context.Context, o Options) (int, *report.Report) {
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	cfg := o.Cfg
	if cfg == nil {
		c, err := config.Load(o.Config)
		if err != nil {
			fmt.Fprintln(o.Stderr, err)
			return ExitUsage, nil
		}
		cfg = c
	}
	if o.MaxWait == 0 {
		o.MaxWait = 30 * time.Second
	}
	for _, id := range o.Only {
		if !slices.ContainsFunc(allChecks(), func(c *scenario.Check) bool { return c.ID == id }) && id != "chaos" {
			fmt.Fprintf(o.Stderr, "idemcheck run: --only: unknown check %q\n", id)
			return ExitUsage, nil
		}
	}
	if o.Seed == 0 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		o.Seed = binary.LittleEndian.Uint64(b[:])>>1 | 1
	}
	fmt.Fprintf(o.Stderr, "idemcheck run: seed %d (rerun with --seed %d)\n", o.Seed, o.Seed)

	tmp, err := os.MkdirTemp("", "idemcheck-run-")
	if err != nil {
		fmt.Fprintln(o.Stderr, "idemcheck run:", err)
		return ExitUsage, nil
	}
	defer os.RemoveAll(tmp)
	stateDir, logDir := tmp+"/state", tmp+"/logs"
	_ = os.MkdirAll(stateDir, 0o755)
	_ = os.MkdirAll(logDir, 0o755)

	env := map[string]string{}
	for k, v := range o.Env {
		env[k] = v
	}
	e := &scenario.Env{Cfg: cfg, MaxWait: o.MaxWait, Seed: o.Seed, Advance: o.Advance, Links: o.Links}
	if !o.Quiet {
		e.Log = o.Stderr
	}
	defer func() {
		if e.TP != nil {
			_ = e.TP.Stop()
		}
	}()

	switch {
	case cfg.Effects.FakePSP && o.PSP != nil:
		e.PSP, e.Effects = o.PSP, pspEffects{o.PSP}
	case cfg.Effects.FakePSP:
		psp, err := fakepsp.Start(fakepsp.Config{RateLimits: fakepsp.RateLimits{Disabled: true},
			Addr: cfg.Effects.FakePSPListen, SecretKey: cfg.Effects.FakePSPKey})
		if err != nil {
			fmt.Fprintln(o.Stderr, "idemcheck run: start fakepsp:", err)
			return ExitUsage, nil
		}
		defer psp.Close()
		e.PSP, e.Effects = psp, pspEffects{psp}
		env["PSP_URL"], env["PSP_KEY"] = psp.URL(), psp.SecretKey()
		fmt.Fprintf(o.Stderr, "idemcheck run: fakepsp at %s, secret key %s (give both to the service; a started command gets $PSP_URL and $PSP_KEY)\n", psp.URL(), psp.SecretKey())
	case cfg.Effects.Counter != nil:
		e.Effects = httpCounter{cfg.Effects.Counter}
	case cfg.Effects.SQL != nil:
		e.Effects = sqlCounter{cfg.Effects.SQL}
	}

	if cfg.Proxy != nil && len(cfg.Proxy.Links) > 0 {
		tp, err := e.Proxy()
		if err != nil {
			fmt.Fprintln(o.Stderr, "idemcheck run: start Toxiproxy:", err)
			return ExitUsage, nil
		}
		for _, l := range cfg.Proxy.Links {
			up := l.Upstream
			if up == "fakepsp" && e.PSP != nil {
				up = strings.TrimPrefix(e.PSP.URL(), "http://")
			}
			link, err := tp.Link(l.Name, up)
			if err != nil {
				fmt.Fprintf(o.Stderr, "%s:%d: toxiproxy.links: %v\n", cfg.File, cfg.Line("toxiproxy.links"), err)
				return ExitUsage, nil
			}
			env[strings.ToUpper(l.Name)+"_ADDR"] = link.Addr()
			e.Links = append(e.Links, scenario.DepLink{Name: l.Name, Link: link})
			fmt.Fprintf(o.Stderr, "idemcheck run: Toxiproxy link %s: %s -> %s (point the service at $%s_ADDR)\n", l.Name, link.Addr(), up, strings.ToUpper(l.Name))
		}
	}

	bases := cfg.Target.BaseURLs
	if o.Bases != nil {
		bases = o.Bases
	}
	e.Procs = o.Instances
	var procs []*faults.Process
	if len(cfg.Target.Command) > 0 && o.Bases == nil {
		st, err := startTargets(cfg, env, stateDir, logDir)
		defer st.stop()
		if err != nil {
			fmt.Fprintf(o.Stderr, "idemcheck run: target unreachable: %v\n", err)
			return ExitUnreachable, nil
		}
		bases, procs = st.bases, st.procs
		for _, p := range procs {
			e.Procs = append(e.Procs, proc{p})
		}
		if c, ok := e.Effects.(httpCounter); ok {
			// The counter may live on the started service's own port.
			cc := *c.c
			cc.URL = st.expand(cc.URL)
			e.Effects = httpCounter{&cc}
		}
	}
	d := driver.New(cfg, bases)
	e.D = d
	ready := cfg.Target.Ready
	if ready == "" {
		ready = "/"
	}
	e.WaitReady = o.WaitReady
	if e.WaitReady == nil {
		e.WaitReady = func(ctx context.Context, i int) error {
			var p *faults.Process
			if i < len(procs) {
				p = procs[i]
			}
			return waitReady(ctx, func(ctx context.Context) error { return d.Reachable(ctx, bases[i], ready) }, p, cfg.StartTimeoutD())
		}
	}
	for i, b := range bases {
		timeout := 2 * time.Second
		var p *faults.Process
		if i < len(procs) {
			timeout, p = cfg.StartTimeoutD(), procs[i]
		}
		err := waitReady(ctx, func(ctx context.Context) error { return d.Reachable(ctx, b, ready) }, p, timeout)
		if err != nil {
			fmt.Fprintf(o.Stderr, "idemcheck run: target unreachable: GET %s%s: %v\n", strings.TrimRight(b, "/"), ready, err)
			return ExitUnreachable, nil
		}
	}

	rep := &report.Report{Config: cfg.File, Targets: bases, Profile: cfg.Proto().Name, Seed: o.Seed,
		Strict: o.Strict || cfg.Strict, Started: time.Now()}
	checks := allChecks()
	if o.Chaos {
		checks = []*scenario.Check{chaosCheck(o.Duration, rep)}
	}
	if len(o.Only) > 0 {
		checks = slices.DeleteFunc(checks, func(c *scenario.Check) bool { return !slices.Contains(o.Only, c.ID) })
	}
	prog := &report.Progress{W: o.Stderr, Total: len(checks)}
	for _, c := range checks {
		if ctx.Err() != nil {
			break
		}
		prog.Start(c)
		res := scenario.RunCheck(ctx, e, c)
		prog.Done(res)
		rep.Results = append(rep.Results, res)
	}
	rep.Elapsed = time.Since(rep.Started)
	rep.ExitCode = rep.Exit()
	if o.HTML != "" {
		p, err := report.WriteHTML(o.HTML, rep)
		if err != nil {
			fmt.Fprintln(o.Stderr, "idemcheck run: html:", err)
		} else {
			rep.HTMLPath = p
		}
	}
	if o.JSON != "" {
		if err := report.WriteJSON(o.JSON, rep); err != nil {
			fmt.Fprintln(o.Stderr, "idemcheck run: json:", err)
		}
	}
	if o.JUnit != "" {
		if err := report.WriteJUnit(o.JUnit, rep); err != nil {
			fmt.Fprintln(o.Stderr, "idemcheck run: junit:", err)
		}
	}
	report.Console(o.Stdout, rep)
	return rep.ExitCode, rep
}

func allChecks() []*scenario.Check {
	return append(scenario.SafetyChecks(), scenario.VectorChecks()...)
}
