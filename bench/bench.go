// Package bench is `idemcheck bench`: it starts the local servers once and
// measures each path of the reference stack next to what the same servers
// do raw, in the same run, so every figure comes with the ratio that says how
// close the stack gets to its servers on this machine today. Absolute rates
// move with the machine's load; a ratio is measured within one run and moves
// much less.
package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/idemcheck/idemcheck/targets/tier"
)

// Exit codes of `idemcheck bench`.
const (
	ExitOK          = 0
	ExitFailed      = 1 // a measurement failed: its figures are missing
	ExitUsage       = 2
	ExitUnreachable = 3 // the servers did not start
)

// Options is one bench run.
type Options struct {
	// Quick is the short run (about 17 minutes on 2 cores, 15 of them the
	// kill matrix).
	Quick bool
	// Out is the report directory: CPU profiles of every tier and of the
	// harness, per section, and the chaos run's report.
	Out string
	// Only runs these sections (all when empty); see Sections.
	Only []string
	// Seed drives the chaos schedule (0: drawn and printed).
	Seed   uint64
	Stdout io.Writer
	Stderr io.Writer
}

// Sections are the measurements, in the order they run.
var Sections = []string{"api", "delivery", "checker", "verdict", "stream", "regions", "chaos", "killmatrix", "campaign", "shrink"}

// Row is one figure of the table: a measured value next to its reference.
type Row struct {
	Path, Value, Reference, Ratio string
}

// section is one measurement: it adds rows and key=value pairs.
type section struct {
	name string
	need need
	run  func(ctx context.Context, r *runner) error
}

// need says which servers a section uses.
type need struct{ kafka, r2 bool }

var sections = []section{
	{"api", need{}, runAPI},
	{"delivery", need{kafka: true}, runDelivery},
	{"checker", need{}, runChecker},
	{"verdict", need{}, runVerdict},
	{"stream", need{kafka: true}, runStream},
	{"regions", need{r2: true}, runRegions},
	{"chaos", need{}, runChaos},
	{"killmatrix", need{kafka: true}, runKillMatrix},
	{"campaign", need{kafka: true}, runCampaign},
	{"shrink", need{kafka: true}, runShrink},
}

// runner is the state of one bench run.
type runner struct {
	o    Options
	srv  *servers
	rows []Row
	keys []string
	vals map[string]string
	log  io.Writer
	dir  string // this section's profile directory
}

func (r *runner) row(path, value, ref, ratio string) {
	r.rows = append(r.rows, Row{path, value, ref, ratio})
}

// key records one pair of the final line, in order of first setting.
func (r *runner) key(k string, format string, v any) {
	if _, ok := r.vals[k]; !ok {
		r.keys = append(r.keys, k)
	}
	r.vals[k] = fmt.Sprintf(format, v)
}

func (r *runner) logf(format string, a ...any) {
	fmt.Fprintf(r.log, "bench: "+format+"\n", a...)
}

// size picks the quick or the full figure.
func (r *runner) size(quick, full int) int {
	if r.o.Quick {
		return quick
	}
	return full
}

// Run performs the bench and returns its exit code.
func Run(ctx context.Context, o Options) int {
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	chosen, err := choose(o.Only)
	if err != nil {
		fmt.Fprintln(o.Stderr, "idemcheck bench:", err)
		return ExitUsage
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		fmt.Fprintf(o.Stderr, "idemcheck bench: --out %s: %v\n", o.Out, err)
		return ExitUsage
	}
	r := &runner{o: o, vals: map[string]string{}, log: o.Stderr}
	var nd need
	for _, s := range chosen {
		nd.kafka = nd.kafka || s.need.kafka
		nd.r2 = nd.r2 || s.need.r2
	}
	t0 := time.Now()
	mode := "full"
	if o.Quick {
		mode = "quick"
	}
	r.logf("%s run on %d cores (load average %s); starting the servers once", mode, runtime.NumCPU(), loadAvg())
	srv, err := startServers(ctx, nd, o.Stderr)
	if err != nil {
		fmt.Fprintf(o.Stderr, "idemcheck bench: servers unreachable: %v\n", err)
		return ExitUnreachable
	}
	r.srv = srv
	defer srv.stop()
	r.logf("servers up in %.1fs", time.Since(t0).Seconds())
	var failed []string
	for _, s := range chosen {
		if ctx.Err() != nil {
			failed = append(failed, s.name+" (interrupted)")
			continue
		}
		st := time.Now()
		r.logf("== %s ==", s.name)
		if err := r.profiled(ctx, s); err != nil {
			failed = append(failed, s.name)
			fmt.Fprintf(o.Stderr, "idemcheck bench: %s: %v\n", s.name, err)
			r.row(s.name, "FAILED: "+firstLine(err.Error()), "", "")
		}
		r.logf("%s took %.1fs", s.name, time.Since(st).Seconds())
	}
	r.key("load_avg", "%s", strings.ReplaceAll(loadAvg(), " ", "/"))
	r.key("bench_s", "%.0f", time.Since(t0).Seconds())
	r.finish(o.Stdout, mode, failed)
	if len(failed) > 0 {
		return ExitFailed
	}
	return ExitOK
}

// finish prints the table and, last, the bench: line (failed sections named
// in failed=, their figures missing).
func (r *runner) finish(w io.Writer, mode string, failed []string) {
	r.print(w, mode)
	if len(failed) > 0 {
		r.key("failed", "%s", strings.ReplaceAll(strings.Join(failed, ","), " ", "_"))
	}
	pairs := make([]string, 0, len(r.keys))
	for _, k := range r.keys {
		pairs = append(pairs, k+"="+r.vals[k])
	}
	fmt.Fprintf(w, "bench: %s\n", strings.Join(pairs, " "))
}

// profiled runs a section with its tiers and this process CPU-profiled
// into OUT/profiles/SECTION.
func (r *runner) profiled(ctx context.Context, s section) error {
	r.dir = filepath.Join(r.o.Out, "profiles", s.name)
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return err
	}
	// Tiers started from here on inherit it (targets/tier writes the profile).
	old, had := os.LookupEnv(tier.EnvCPUProfile)
	os.Setenv(tier.EnvCPUProfile, r.dir)
	defer func() {
		if had {
			os.Setenv(tier.EnvCPUProfile, old)
		} else {
			os.Unsetenv(tier.EnvCPUProfile)
		}
	}()
	f, err := os.Create(filepath.Join(r.dir, "harness.pprof"))
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	defer pprof.StopCPUProfile()
	err = s.run(ctx, r)
	r.sweepProfiles()
	return err
}

// sweepProfiles removes the empty profiles of tiers that were SIGKILLed (the
// chaos section's kill-restart fault, or a tier that did not stop within
// the grace after SIGTERM): a killed process cannot write one.
func (r *runner) sweepProfiles() {
	files, _ := filepath.Glob(filepath.Join(r.dir, "*.pprof"))
	var killed []string
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.Size() == 0 && filepath.Base(f) != "harness.pprof" {
			_ = os.Remove(f)
			killed = append(killed, strings.TrimSuffix(filepath.Base(f), ".pprof"))
		}
	}
	if len(killed) > 0 {
		r.logf("no CPU profile from %s: SIGKILLed (by a fault, or not stopped within the grace after SIGTERM)", strings.Join(killed, ", "))
	}
}

func (r *runner) print(w io.Writer, mode string) {
	fmt.Fprintf(w, "\nidemcheck bench (%s), %d cores, load average %s; each figure next to its reference, measured in this run on the same servers\n\n", mode, runtime.NumCPU(), loadAvg())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PATH\tMEASURED\tNEXT TO\tRATIO")
	for _, x := range r.rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", x.Path, x.Value, x.Reference, x.Ratio)
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "\nCPU profiles (go tool pprof FILE): %s\n", filepath.Join(r.o.Out, "profiles", "SECTION", "TIER-PID.pprof"))
}

func choose(only []string) ([]section, error) {
	if len(only) == 0 {
		return sections, nil
	}
	var out []section
	for _, s := range sections {
		for _, o := range only {
			if o == s.name {
				out = append(out, s)
			}
		}
	}
	for _, o := range only {
		ok := false
		for _, s := range sections {
			ok = ok || s.name == o
		}
		if !ok {
			return nil, fmt.Errorf("--only: unknown section %q (have %s)", o, strings.Join(Sections, ", "))
		}
	}
	return out, nil
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}
