package conform

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/checks"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/pspfront"
	"github.com/idemcheck/idemcheck/conform/report"
	"github.com/idemcheck/idemcheck/conform/scenario"
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
	// RequireAllSafety fails the run when any safety check is n/a.
	RequireAllSafety bool
	JSON             string
	JUnit            string
	HTML             string
	// Only runs the checks with these IDs (all when empty).
	Only []string
	// Skip leaves the checks with these IDs out.
	Skip []string
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
	// Rerun is the command line that reruns this run, without --seed and
	// --only (default: idemcheck run --config FILE, with --chaos --duration).
	Rerun string

	// A target idemcheck does not start from target.command (the reference
	// job) hands over its parts here.
	PSP   scenario.LocalPSP
	Front *pspfront.Front
	Bases []string
	// Instances, WaitReady, Advance and Links: see scenario.Env.
	Instances []faults.Proc
	WaitReady func(ctx context.Context, i int) error
	Advance   func(offset time.Duration) error
	Links     []scenario.DepLink
	// BurstLinks: see scenario.Env.
	BurstLinks []scenario.DepLink
	// Tiers are the target's processes by kind, for the fault catalogue;
	// PSPWebhooks says fakepsp delivers its events to the target.
	Tiers       []faults.Tier
	PSPWebhooks bool
	// Regions: see scenario.Env.
	Regions *faults.Regions
	// ChaosFaults narrows the chaos schedule to these catalogue faults.
	ChaosFaults []string
	// Plan gives chaos a schedule to run instead of the seed's (a shrunk
	// one), or receives the schedule it ran; ScheduleFile is the file
	// Plan.Given was read from, for the report and the replay command.
	Plan         checks.ChaosPlan
	ScheduleFile string
	// Resources, when set, is the CSV file of idemcheck's and the started
	// target's rss, descriptors, Go heap and goroutines, sampled every
	// ResourceEvery (default a minute) for the run's length.
	Resources     string
	ResourceEvery time.Duration
	// ChaosWindow is the longest chaos stretch judged in one piece (default
	// checks.DefaultChaosWindow); a longer --duration runs in rounds.
	ChaosWindow time.Duration
	// Behind: see scenario.Env.
	Behind func(ctx context.Context) (effects, sink history.History, err error)
	// WebhookProc, when set, is the process serving the config's webhook
	// handler (the reference's webhook tier), for W-kill; WebhookReady waits
	// until it answers again.
	WebhookProc  faults.Proc
	WebhookReady func(ctx context.Context) error
	// StartConsumers, when set, starts the consumer of the config's
	// consumer section on the run's queue (the reference's workers)
	// instead of target.command.
	StartConsumers func(ctx context.Context, where broker.Endpoint) (*Consumers, error)
}

// Consumers are the processes a StartConsumers started: Ready waits until
// process i consumes again, Stop ends them all.
type Consumers struct {
	Procs []faults.Proc
	Ready func(ctx context.Context, i int) error
	Stop  func()
	// Points: see scenario.Queue.
	Points []faults.Failpoint
}

// ValidateIDs refuses a check ID in Only or Skip that names no check, before
// anything starts.
func ValidateIDs(o Options) error {
	for _, l := range []struct {
		flag string
		ids  []string
	}{{"--only", o.Only}, {"--skip", o.Skip}} {
		for _, id := range l.ids {
			if !slices.ContainsFunc(allChecks(), func(c *scenario.Check) bool { return c.ID == id }) && id != "chaos" {
				return fmt.Errorf("%s: unknown check %q (idemcheck run --list-checks lists them)", l.flag, id)
			}
		}
	}
	return nil
}

// Run performs a whole run: start the target, run the checks, write the
// reports. It returns the exit code and the report (nil when the run never
// started: config error, unreachable target).
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
	if err := ValidateIDs(o); err != nil {
		fmt.Fprintln(o.Stderr, "idemcheck run:", err)
		return ExitUsage, nil
	}
	if o.Seed == 0 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		o.Seed = binary.LittleEndian.Uint64(b[:])>>1 | 1
	}
	fmt.Fprintf(o.Stderr, "idemcheck run: seed %d (rerun with --seed %d)\n", o.Seed, o.Seed)

	sweepStale()
	tmp, err := os.MkdirTemp("", "idemcheck-run-")
	if err != nil {
		fmt.Fprintln(o.Stderr, "idemcheck run:", err)
		return ExitUsage, nil
	}
	defer os.RemoveAll(tmp)
	writeOwner(tmp)
	logDir := tmp + "/logs"
	if d := reportDir(o); d != "" {
		// The target's output is kept with the reports.
		logDir = filepath.Join(d, "target-logs")
	}
	tg, code := startTarget(ctx, cfg, o, tmp, logDir)
	defer tg.stop()
	if tg.e == nil {
		// startTarget printed the end of the target's output.
		if reportDir(o) == "" && len(tg.procs) > 0 {
			fmt.Fprintln(o.Stderr, "idemcheck run: the lines above are all that is kept of the target's output: with --html DIR (or --json/--junit FILE) it is kept in DIR/target-logs")
		}
		return code, nil
	}
	rep := &report.Report{Config: cfg.File, Targets: tg.e.D.Bases(), Profile: cfg.Proto().Name, Seed: o.Seed,
		Strict: o.Strict || cfg.Strict, RequireAllSafety: o.RequireAllSafety, Started: time.Now(), TargetLogs: tg.logs()}
	if cfg.Effects.FakePSP && o.PSP == nil {
		rep.PSP = []string{SearchLagWords(cfg.SearchLagD())}
		if cfg.Webhook != nil {
			rep.PSP = append(rep.PSP, cfg.FreedomsWords())
		}
	}
	rep.Rerun = o.Rerun
	if rep.Rerun == "" {
		rep.Rerun = "idemcheck run --config " + report.ShellQuote(cfg.File)
	}
	if o.Chaos {
		rep.Rerun += fmt.Sprintf(" --chaos --duration %s", o.Duration)
		if o.ChaosWindow > 0 && o.ChaosWindow != checks.DefaultChaosWindow && o.Duration > o.ChaosWindow {
			// The rounds' seeds and lengths follow from the window.
			rep.Rerun += fmt.Sprintf(" --chaos-window %s", o.ChaosWindow)
		}
		if o.ScheduleFile != "" {
			rep.ScheduleFile = o.ScheduleFile
			rep.Rerun += " --schedule " + report.ShellQuote(o.ScheduleFile)
		}
	}
	stopSampling := sampleResources(o, tg)
	runChecks(ctx, tg.e, o, rep)
	rep.Resources = stopSampling()
	if cfg.Effects.FakePSP && o.PSP == nil && cfg.Webhook != nil && tg.e.Local != nil {
		c := tg.e.Local.WebhookFreedomCounts()
		rep.PSP = append(rep.PSP, fmt.Sprintf("webhooks in this run: %d event(s) scheduled, %d drawn for a second delivery, %d delivered late", c.Events, c.Duplicated, c.Reordered))
	}
	if rep.ConfigErr != nil {
		// The config cannot be right: no verdict of this run means anything.
		fmt.Fprintln(o.Stderr, rep.ConfigErr)
		return ExitUsage, nil
	}
	rep.Elapsed = time.Since(rep.Started)
	rep.ExitCode = rep.Exit()
	writeReports(o, rep)
	if rep.ExitCode != ExitPass {
		tg.printTails(o.Stderr)
	}
	return rep.ExitCode, rep
}

// runChecks probes the keys, runs every selected check, waits out the quiet
// period and recounts every intent's charges across the run.
func runChecks(ctx context.Context, e *scenario.Env, o Options, rep *report.Report) {
	defer func() {
		if err := e.PaymentIDError(); err != nil {
			rep.ConfigErr = err
		}
	}()
	if !o.Chaos && !e.Cfg.ConsumerOnly() {
		if msg := scenario.Probe(ctx, e); msg != "" {
			rep.Probe = msg
			fmt.Fprintf(o.Stderr, "idemcheck run: PROBE: %s\n", msg)
		}
	}
	checks := allChecks()
	if o.Chaos {
		checks = []*scenario.Check{chaosCheck(o, rep)}
	}
	if len(o.Only) > 0 {
		checks = slices.DeleteFunc(checks, func(c *scenario.Check) bool { return !slices.Contains(o.Only, c.ID) })
	}
	checks = slices.DeleteFunc(checks, func(c *scenario.Check) bool { return slices.Contains(o.Skip, c.ID) })
	prog := &report.Progress{W: o.Stderr, Total: len(checks)}
	for _, c := range checks {
		if ctx.Err() != nil || e.PaymentIDError() != nil {
			break
		}
		c = c.In(e)
		prog.Start(c)
		res := scenario.RunCheck(ctx, e, c)
		prog.Done(res)
		rep.Results = append(rep.Results, res)
	}
	if ctx.Err() == nil && len(rep.Results) > 0 && e.PaymentIDError() == nil {
		fmt.Fprintf(o.Stderr, "idemcheck run: quiet period %s, then the final recount of every intent's charges\n", e.Cfg.QuiesceD())
		rep.Results = scenario.Recount(ctx, e, rep.Results)
	}
	rep.Waits = e.Waits()
}

func writeReports(o Options, rep *report.Report) {
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
}

func allChecks() []*scenario.Check { return checks.All() }

// reportDir is where the run's reports go: the --html directory, else the
// directory of the --json or --junit file; "" when no report is written.
func reportDir(o Options) string {
	switch {
	case o.HTML != "":
		return o.HTML
	case o.JSON != "":
		return filepath.Dir(o.JSON)
	case o.JUnit != "":
		return filepath.Dir(o.JUnit)
	}
	return ""
}
