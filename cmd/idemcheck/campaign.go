package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/idemcheck/idemcheck/conform"
	"github.com/idemcheck/idemcheck/conform/campaign"
)

// campaignFlags are run's flags for a campaign: --seeds A-B [--shard I/N]
// --out DIR (the shard from a Kubernetes Indexed Job's environment when
// --shard is not given).
type campaignFlags struct {
	seeds, shard, out string
	shards            int
	// parallel is how many of the shard's seeds run at once (1: in turn).
	parallel int
}

// runCampaign runs the seeds of its shard one after another, each with its
// JSON and HTML report under out/seed-<N>, then prints the shard's merged
// answer. It stops at a usage error or an unreachable target (every later
// seed would say the same), keeping what ran.
func runCampaign(ctx context.Context, cf campaignFlags, o conform.Options, ref bool, mut string, stdout, stderr io.Writer) int {
	r, err := campaign.ParseRange(cf.seeds)
	if err != nil {
		fmt.Fprintln(stderr, "idemcheck run:", err)
		return conform.ExitUsage
	}
	if cf.out == "" {
		fmt.Fprintln(stderr, "idemcheck run: --seeds needs --out DIR, where each seed's report goes")
		return conform.ExitUsage
	}
	if !o.Chaos {
		fmt.Fprintln(stderr, "idemcheck run: --seeds needs --chaos (a campaign runs chaos seeds)")
		return conform.ExitUsage
	}
	if o.JSON != "" || o.HTML != "" || o.JUnit != "" {
		fmt.Fprintln(stderr, "idemcheck run: with --seeds each seed's reports go under --out; merge them with idemcheck merge --json/--html/--junit")
		return conform.ExitUsage
	}
	sh, fromEnv, err := campaign.ShardFromEnv(os.Getenv, cf.shards)
	if cf.shard != "" {
		sh, err = campaign.ParseShard(cf.shard)
	} else if !fromEnv && cf.shards > 0 {
		err = fmt.Errorf("--shards %d without --shard I/N or JOB_COMPLETION_INDEX: which shard is this?", cf.shards)
	}
	if err != nil {
		fmt.Fprintln(stderr, "idemcheck run:", err)
		return conform.ExitUsage
	}
	seeds := r.Seeds(sh)
	fmt.Fprintf(stderr, "idemcheck run: campaign seeds %d-%d, shard %d of %d: %d seed(s), reports under %s\n", r.First, r.Last, sh.Index, sh.Count, len(seeds), cf.out)
	if err := os.MkdirAll(cf.out, 0o755); err != nil {
		fmt.Fprintln(stderr, "idemcheck run:", err)
		return conform.ExitUsage
	}
	runner := conform.Run
	if ref && len(seeds) > 0 {
		// One set of servers for the shard's seeds, as the kill matrix and
		// a shrink share theirs.
		run, stop, err := referenceRunner(ctx, mut)
		if err != nil {
			fmt.Fprintf(stderr, "idemcheck run: campaign: servers: %v\n", err)
			return conform.ExitUnreachable
		}
		defer stop()
		runner = run
	}
	if cf.parallel < 1 {
		fmt.Fprintf(stderr, "idemcheck run: --parallel %d: want at least 1\n", cf.parallel)
		return conform.ExitUsage
	}
	if cf.parallel > 1 && !ref {
		if why := parallelRefused(o.Config); why != "" {
			fmt.Fprintf(stderr, "idemcheck run: --parallel %d: seeds at once would share what one seed's faults act on: %s; run them in turn (--parallel 1) or give each shard its own deployment\n", cf.parallel, why)
			return conform.ExitUsage
		}
	}
	paths, code := runSeeds(ctx, seeds, cf, o, runner, stderr)
	if code != 0 {
		return code
	}
	runs, _, err := campaign.Read(paths)
	if err != nil {
		fmt.Fprintln(stderr, "idemcheck run: reading the campaign's reports:", err)
		return conform.ExitViolation
	}
	c := campaign.Merge(runs)
	campaign.Print(stdout, c, 0)
	if ctx.Err() != nil || len(runs) != len(seeds) {
		fmt.Fprintf(stdout, "INCONCLUSIVE: the campaign stopped after %d of its shard's %d seed(s)\n", len(runs), len(seeds))
		return conform.ExitViolation
	}
	return c.ExitCode
}

// cmdMerge is `idemcheck merge DIR...`: the reports of any number of
// shards (or merges) as one answer. Exit codes as run's.
func cmdMerge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("idemcheck merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.String("json", "", "write the merged campaign's JSON to `FILE` (merge reads it back)")
	htmlOut := fs.String("html", "", "write the merged campaign's HTML page into `DIR`")
	junitOut := fs.String("junit", "", "write a JUnit XML report to `FILE`: a test case per distinct finding")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: idemcheck merge [--json FILE] [--html DIR] [--junit FILE] DIR|FILE...")
		fmt.Fprintln(stderr, "Merges run reports (JSON, found at any depth of each DIR) and merged campaigns into one answer.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return conform.ExitUsage
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "idemcheck merge: give at least one DIR or FILE of reports")
		return conform.ExitUsage
	}
	runs, skipped, err := campaign.Read(fs.Args())
	if err != nil {
		fmt.Fprintln(stderr, "idemcheck merge:", err)
		return conform.ExitUsage
	}
	c := campaign.Merge(runs)
	campaign.Print(stdout, c, len(skipped))
	if *jsonOut != "" {
		if err := campaign.WriteJSON(*jsonOut, c); err != nil {
			fmt.Fprintln(stderr, "idemcheck merge:", err)
			return conform.ExitUsage
		}
	}
	if *junitOut != "" {
		if err := campaign.WriteJUnit(*junitOut, c); err != nil {
			fmt.Fprintln(stderr, "idemcheck merge:", err)
			return conform.ExitUsage
		}
	}
	if *htmlOut != "" {
		p, err := campaign.WriteHTML(*htmlOut, c)
		if err != nil {
			fmt.Fprintln(stderr, "idemcheck merge:", err)
			return conform.ExitUsage
		}
		fmt.Fprintln(stdout, "html:", p)
	}
	if c.Seeds == 0 {
		return conform.ExitViolation // nothing proven is not a pass
	}
	return c.ExitCode
}
