package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/idemcheck/idemcheck/conform"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/reference"
)

// cmdRun is `idemcheck run`: conformance of a payment endpoint under faults.
// Exit codes: 0 pass, 1 violation (or an error or inconclusive check), 2
// config or usage error, 3 target unreachable.
func cmdRun(args []string, stdout, stderr io.Writer) int {
	if rest, ok := runInitProbe(args); ok {
		return cmdInit(rest, stdout, stderr) // run --init --probe URL is init --probe URL
	}
	fs := flag.NewFlagSet("idemcheck run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := fs.String("config", "idemcheck.yaml", "target config file (YAML)")
	initCfg := fs.Bool("init", false, "write a commented starter config to --config and exit")
	strict := fs.Bool("strict", false, "protocol deviations fail the run too")
	allSafety := fs.Bool("require-all-safety", false, "a safety check that does not apply to the target (n/a) fails the run")
	jsonOut := fs.String("json", "", "write the JSON report to `FILE`")
	junitOut := fs.String("junit", "", "write a JUnit XML report to `FILE`")
	htmlOut := fs.String("html", "", "write the HTML report (with porcupine pictures) into `DIR` (default: ./"+reportBase+"/<time>-<id>, the newest also as latest)")
	only := fs.String("only", "", "comma-separated check IDs to run (e.g. A2,A5,P-conflict)")
	skip := fs.String("skip", "", "comma-separated check IDs not to run (e.g. B4,P-expiry)")
	listC := fs.Bool("list-checks", false, "print every check (ID, level, what it does, its rule) and exit")
	listM := fs.Bool("list-mutants", false, "print every guard switch of the reference stack (for --reference --mutant) and exit")
	seedStr := fs.String("seed", "", "seed for every random choice (printed when drawn)")
	chaos := fs.Bool("chaos", false, "randomized mode: seeded faults mixed with concurrent traffic, whole history checked (with --reference: the whole stack in two Regions, with a failover)")
	duration := fs.Duration("duration", 10*time.Second, "length of --chaos traffic")
	maxWait := fs.Duration("max-wait", 30*time.Second, "longest wait for a key window or retry horizon")
	quiet := fs.Bool("quiet", false, "no per-request log lines")
	resFile := fs.String("resources", "", "write idemcheck's and the started target's rss, open descriptors, Go heap and goroutines to the CSV `FILE` every --resources-every, and print their growth after the warm-up (a soak)")
	resEvery := fs.Duration("resources-every", time.Minute, "with --resources: the sampling interval")
	window := fs.Duration("chaos-window", time.Minute, "with --chaos: a --duration longer than this runs in rounds of this length over the same deployment, each judged and then forgotten (its history appended to chaos-history.jsonl in the report directory)")
	ref := fs.Bool("reference", false, "the main job: start the reference stack on local servers and run every check against it")
	mut := fs.String("mutant", "", "with --reference: switch guards off (comma-separated names of package targets/mutant)")
	kill := fs.Bool("kill-matrix", false, "with --reference --chaos: run every switch chaos accepts (or those of --mutant, each alone) and no switch, --kill-seeds seeds each, and print the kill matrix")
	killSeeds := fs.Int("kill-seeds", 5, "with --kill-matrix: seeds per switch (--seed, --seed+1, ...)")
	var sf shrinkFlags
	fs.BoolVar(&sf.on, "shrink", false, "with --chaos --seed N that fails: reduce its schedule to the smallest that still fails with the same kind, written to --shrink-out")
	fs.StringVar(&sf.replays, "shrink-replays", "3/3", "with --shrink: a schedule fails when `K/N` of its replays fail with the kind")
	fs.IntVar(&sf.maxRuns, "shrink-runs", 300, "with --shrink: the most runs to spend (the smallest failing schedule so far is kept)")
	fs.StringVar(&sf.kind, "shrink-kind", "", "with --shrink: the kind to keep (default: the first the seed's run found)")
	fs.StringVar(&sf.out, "shrink-out", "", "with --shrink: the `DIR` of schedule.json and the shrunk run's picture (default ./idemcheck-shrink-<seed>)")
	fs.StringVar(&sf.schedule, "schedule", "", "with --chaos: run the schedule `FILE` (written by --shrink) instead of the seed's")
	var cf campaignFlags
	fs.StringVar(&cf.seeds, "seeds", "", "with --chaos: a campaign of seeds `A-B`, run one after another, each seed's reports under --out")
	fs.StringVar(&cf.shard, "shard", "", "with --seeds: run only shard `I/N` of them (I from 0; default: a Kubernetes Indexed Job's JOB_COMPLETION_INDEX of --shards)")
	fs.IntVar(&cf.shards, "shards", 0, "with --seeds in a Kubernetes Indexed Job: the shard count (default $IDEMCHECK_SHARDS)")
	fs.StringVar(&cf.out, "out", "", "with --seeds: the `DIR` each seed's JSON and HTML reports go to (merge them with idemcheck merge)")
	fs.IntVar(&cf.parallel, "parallel", 1, "with --seeds: run `N` of the shard's seeds at once, where each run is a world of its own (a target idemcheck starts per run with its own fakepsp and links, or --reference); refused for a shared deployment")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: idemcheck run [--config FILE] [--strict] [--require-all-safety] [--json FILE] [--junit FILE] [--html DIR] [--only IDS] [--skip IDS] [--chaos --seed N --duration D]")
		fmt.Fprintln(stderr, "       idemcheck run --list-checks | --list-mutants")
		fmt.Fprintln(stderr, "       idemcheck run --init [--config FILE] [--probe URL ...]   (the same as idemcheck init; init --help)")
		fmt.Fprintln(stderr, "       idemcheck run --reference [--mutant NAME] [--html DIR]")
		fmt.Fprintln(stderr, "       idemcheck run --chaos --seed N --shrink [--shrink-replays K/N] [--shrink-out DIR]   then: run --chaos --schedule DIR/schedule.json")
		fmt.Fprintln(stderr, "       idemcheck run --chaos --seeds A-B [--shard I/N] --out DIR [--config FILE | --reference]   (a campaign; idemcheck merge DIR...)")
		fs.PrintDefaults()
	}
	if code, ok := parseNoArgs(fs, args, stderr, "run"); !ok {
		return code
	}
	if *listC {
		listChecks(stdout)
		return 0
	}
	if *listM {
		listMutants(stdout)
		return 0
	}
	if *initCfg {
		f, err := os.OpenFile(*cfgPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "idemcheck run --init: %v (refusing to overwrite)\n", err)
			return conform.ExitUsage
		}
		_, err = f.WriteString(config.Starter)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			fmt.Fprintf(stderr, "idemcheck run --init: %v\n", err)
			return conform.ExitUsage
		}
		fmt.Fprintf(stdout, "wrote %s; edit it, then: idemcheck run --config %s\n", *cfgPath, *cfgPath)
		return 0
	}
	seed, ok := parseSeed(*seedStr, stderr, "run")
	if !ok {
		return conform.ExitUsage
	}
	ids, skipIDs := idList(*only), idList(*skip)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := conform.Options{
		Config: *cfgPath, Strict: *strict, RequireAllSafety: *allSafety, JSON: *jsonOut, JUnit: *junitOut, HTML: *htmlOut, Only: ids, Skip: skipIDs,
		Seed: seed, Chaos: *chaos, Duration: *duration, MaxWait: *maxWait, Stdout: stdout, Stderr: stderr, Quiet: *quiet,
		Resources: *resFile, ResourceEvery: *resEvery, ChaosWindow: *window,
	}
	if err := conform.ValidateIDs(o); err != nil {
		fmt.Fprintln(stderr, "idemcheck run:", err)
		return conform.ExitUsage
	}
	if *mut != "" && !*ref {
		fmt.Fprintln(stderr, "idemcheck run: --mutant needs --reference")
		return conform.ExitUsage
	}
	if *kill {
		if !*ref || !*chaos {
			fmt.Fprintln(stderr, "idemcheck run: --kill-matrix needs --reference --chaos")
			return conform.ExitUsage
		}
		d := 20 * time.Second // the matrix's default, unless --duration was given
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "duration" {
				d = *duration
			}
		})
		return killMatrix(ctx, *mut, seed, *killSeeds, d, o.HTML, stdout, stderr)
	}
	if sf.schedule != "" {
		if !*chaos || sf.on || cf.seeds != "" {
			fmt.Fprintln(stderr, "idemcheck run: --schedule needs --chaos, without --shrink or --seeds")
			return conform.ExitUsage
		}
		durationGiven := false
		fs.Visit(func(f *flag.Flag) { durationGiven = durationGiven || f.Name == "duration" })
		if !loadSchedule(sf.schedule, &o, durationGiven, stderr) {
			return conform.ExitUsage
		}
	}
	if sf.on {
		return runShrink(ctx, sf, o, *ref, *mut, stdout, stderr)
	}
	if cf.seeds != "" {
		if *seedStr != "" {
			fmt.Fprintln(stderr, "idemcheck run: --seed and --seeds: give one")
			return conform.ExitUsage
		}
		return runCampaign(ctx, cf, o, *ref, *mut, stdout, stderr)
	}
	if cf.shard != "" || cf.out != "" || cf.shards != 0 || cf.parallel != 1 {
		fmt.Fprintln(stderr, "idemcheck run: --shard, --shards, --out and --parallel belong to a campaign: give --seeds A-B")
		return conform.ExitUsage
	}
	if o.HTML == "" {
		dir, err := newReportDir(reportBase, time.Now())
		if err != nil {
			fmt.Fprintln(stderr, "idemcheck run:", err)
			return conform.ExitUsage
		}
		o.HTML = dir
	}
	if *ref {
		code, _ := reference.Run(ctx, o, *mut)
		return code
	}
	code, _ := conform.Run(ctx, o)
	return code
}

// idList splits a comma-separated list of check IDs.
func idList(s string) []string {
	var ids []string
	for _, id := range strings.Split(s, ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}
