package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/idemcheck/idemcheck/conform"
	"github.com/idemcheck/idemcheck/conform/report"
	"github.com/idemcheck/idemcheck/conform/shrink"
	"github.com/idemcheck/idemcheck/reference"
)

// runShrink finds a seed the reference fails with campaignSwitch off (the
// first of up to 8 from --seed), then shrinks its schedule with 3 of 3
// replays, and reports the sizes before and after, the ratio, the runs
// and the time.
func runShrink(ctx context.Context, r *runner) error {
	d := time.Duration(r.size(5, 20)) * time.Second
	first := r.firstSeed()
	dir, lf, err := r.sectionDir("shrink")
	if err != nil {
		return err
	}
	defer lf.Close()
	run := func(ctx context.Context, o conform.Options) (int, *report.Report) {
		return reference.RunStack(ctx, o, reference.Stack{Mutants: campaignSwitch, Services: r.srv.stack})
	}
	base := conform.Options{Chaos: true, Duration: d, Quiet: true, Stdout: lf, Stderr: lf}
	var seed uint64
	for s := first; s < first+8 && seed == 0; s++ {
		o := base
		o.Seed = s
		o.HTML = filepath.Join(dir, fmt.Sprintf("search-seed-%d", s)) // not a temp dir of the reference's own
		if code, rep := run(ctx, o); code == conform.ExitViolation && foundKind(rep, campaignKind) {
			seed = s
		}
	}
	if seed == 0 {
		return fmt.Errorf("no seed of %d..%d failed with %s off in %s (log %s)", first, first+7, campaignSwitch, d, lf.Name())
	}
	r.logf("shrink: seed %d of %s fails with %s off (rerun: idemcheck run --reference --mutant %s --chaos --seed %d --duration %s --shrink)", seed, d, campaignSwitch, campaignSwitch, seed, d)
	o := base
	o.Seed = seed
	res, err := shrink.Shrink(ctx, shrink.Options{Run: o, Runner: run, Kind: campaignKind, K: 3, N: 3, MaxRuns: 300, Dir: dir, Log: lf})
	if err != nil {
		return fmt.Errorf("shrink of seed %d: %v (log %s)", seed, err, lf.Name())
	}
	if res.Confirmed < 3 {
		return fmt.Errorf("the shrunk schedule of seed %d failed in %d of 3 final replays (log %s)", seed, res.Confirmed, lf.Name())
	}
	ratio := float64(res.After) / float64(res.Before)
	r.row(fmt.Sprintf("shrink of seed %d (%s, %s off): %d intents to %d, %s in 3 of 3 replays", seed, d, campaignSwitch, res.Before, res.After, res.Kind),
		fmt.Sprintf("%.0f%% of the schedule", 100*ratio), fmt.Sprintf("%d runs, %.0f s", res.Runs, res.Elapsed.Seconds()), "")
	r.key("shrink_intents_before", "%d", res.Before)
	r.key("shrink_intents_after", "%d", res.After)
	r.key("shrink_ratio", "%.3f", ratio)
	r.key("shrink_runs", "%d", res.Runs)
	r.key("shrink_s", "%.0f", res.Elapsed.Seconds())
	return nil
}

// campaignKind is what campaignSwitch is caught as.
const campaignKind = "double-charge"

// foundKind says whether a failing check of rep found kind.
func foundKind(rep *report.Report, kind string) bool {
	if rep == nil {
		return false
	}
	for _, res := range rep.Results {
		for _, f := range res.Findings {
			if f.Kind == kind && rep.Fails(res) {
				return true
			}
		}
	}
	return false
}
