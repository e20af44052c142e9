package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/conform"
	"github.com/idemcheck/idemcheck/conform/checks"
	"github.com/idemcheck/idemcheck/conform/report"
	"github.com/idemcheck/idemcheck/conform/shrink"
)

// shrinkFlags are run's flags for shrinking a failing chaos seed and for
// replaying a schedule file.
type shrinkFlags struct {
	on       bool
	replays  string
	maxRuns  int
	kind     string
	out      string
	schedule string
}

// parseReplays reads K/N.
func parseReplays(s string) (k, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || k < 1 || n < k {
		return 0, 0, fmt.Errorf("--shrink-replays %q: want K/N, K of N replays failing (1 <= K <= N), e.g. 3/3", s)
	}
	return k, n, nil
}

// runShrink is `run --chaos --seed N --shrink`: the seed's schedule
// reduced to the smallest that still fails with the same kind in K of N
// replays, written as a schedule file `run --schedule F` replays.
func runShrink(ctx context.Context, sf shrinkFlags, o conform.Options, ref bool, mut string, stdout, stderr io.Writer) int {
	k, n, err := parseReplays(sf.replays)
	if err != nil {
		fmt.Fprintln(stderr, "idemcheck run:", err)
		return conform.ExitUsage
	}
	if o.Seed == 0 || !o.Chaos {
		fmt.Fprintln(stderr, "idemcheck run: --shrink needs --chaos and the failing --seed N")
		return conform.ExitUsage
	}
	if sf.out == "" {
		sf.out = fmt.Sprintf("idemcheck-shrink-%d", o.Seed)
	}
	if err := os.MkdirAll(sf.out, 0o755); err != nil {
		fmt.Fprintln(stderr, "idemcheck run:", err)
		return conform.ExitUsage
	}
	runner := shrink.Runner(conform.Run)
	if ref {
		run, stop, err := referenceRunner(ctx, mut)
		if err != nil {
			fmt.Fprintf(stderr, "idemcheck run --shrink: servers: %v\n", err)
			return conform.ExitUnreachable
		}
		defer stop()
		runner = run
	}
	o.HTML, o.JSON, o.JUnit = "", "", ""
	res, err := shrink.Shrink(ctx, shrink.Options{Run: o, Runner: runner, Kind: sf.kind, K: k, N: n, MaxRuns: sf.maxRuns, Dir: sf.out, Log: stderr})
	if err != nil {
		fmt.Fprintln(stderr, "idemcheck run --shrink:", err)
		return conform.ExitUsage
	}
	path := filepath.Join(sf.out, "schedule.json")
	note := fmt.Sprintf("seed %d shrunk from %d to %d intents; fails with %s in %d of %d replays", o.Seed, res.Before, res.After, res.Kind, res.Confirmed, res.N)
	if err := checks.WritePlan(path, o.Seed, o.Duration, note, res.Plan); err != nil {
		fmt.Fprintln(stderr, "idemcheck run --shrink:", err)
		return conform.ExitUsage
	}
	fmt.Fprintf(stdout, "shrink: %d intents -> %d (%.0f%% of the schedule) in %d runs, %s\n", res.Before, res.After, 100*float64(res.After)/float64(res.Before), res.Runs, res.Elapsed.Round(time.Second))
	if res.Exhausted {
		fmt.Fprintf(stdout, "shrink: stopped at --shrink-runs %d; the schedule is smaller but may not be minimal\n", sf.maxRuns)
	}
	for _, p := range res.Plan {
		fmt.Fprintf(stdout, "  %s\n", p)
	}
	fmt.Fprintf(stdout, "shrink: still fails with %s in %d of %d replays\n", res.Kind, res.Confirmed, res.N)
	fmt.Fprintf(stdout, "schedule: %s (replay: idemcheck run --config %s --chaos --schedule %s)\n", path, report.ShellQuote(o.Config), path)
	if res.Picture != "" {
		fmt.Fprintf(stdout, "picture: %s\n", res.Picture)
	}
	if res.Confirmed < k {
		fmt.Fprintf(stdout, "INCONCLUSIVE: the shrunk schedule failed in %d of %d final replays, fewer than %d\n", res.Confirmed, res.N, k)
		return conform.ExitViolation
	}
	return conform.ExitViolation // the seed fails: what was shrunk is a failure
}

// loadSchedule reads --schedule F into o: its seed, its intents and, unless
// --duration was given, its duration (the other streams' length).
func loadSchedule(path string, o *conform.Options, durationGiven bool, stderr io.Writer) bool {
	f, plan, err := checks.ReadPlan(path)
	if err != nil {
		fmt.Fprintln(stderr, "idemcheck run: --schedule:", err)
		return false
	}
	if o.Seed != 0 && o.Seed != f.Seed {
		fmt.Fprintf(stderr, "idemcheck run: --seed %d and --schedule %s (seed %d): the schedule's seed is the run's; give one\n", o.Seed, path, f.Seed)
		return false
	}
	o.Seed, o.Plan.Given, o.ScheduleFile = f.Seed, plan, path
	if d, err := time.ParseDuration(f.Duration); err == nil && d > 0 && !durationGiven {
		o.Duration = d
	}
	fmt.Fprintf(stderr, "idemcheck run: schedule %s: %d intents, seed %d%s\n", path, len(plan), f.Seed, map[bool]string{true: " (" + f.Note + ")", false: ""}[f.Note != ""])
	return true
}
