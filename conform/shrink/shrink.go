package shrink

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/idemcheck/idemcheck/conform"
	"github.com/idemcheck/idemcheck/conform/checks"
	"github.com/idemcheck/idemcheck/conform/report"
)

// Runner is one run: conform.Run, or the reference's run.
type Runner func(ctx context.Context, o conform.Options) (int, *report.Report)

// Options is one shrink of a failing chaos seed.
type Options struct {
	// Run is the failing run: its config, seed and duration.
	Run    conform.Options
	Runner Runner
	// Kind is the failure to keep (default: the first kind the seed's run found).
	Kind string
	// K of N replays must fail with Kind for a schedule to count as failing.
	K, N int
	// MaxRuns bounds the runs spent (the smallest failing schedule so far
	// is kept when it is reached).
	MaxRuns int
	// Dir keeps the reports of the last failing run (its picture).
	Dir string
	Log io.Writer
}

// Result is what a shrink found.
type Result struct {
	Kind          string
	Before, After int
	Plan          []checks.Planned
	// Confirmed is how many of N final replays failed with Kind.
	Confirmed, N int
	Runs         int
	Elapsed      time.Duration
	// Exhausted: MaxRuns was reached before the schedule was minimal.
	Exhausted bool
	// Picture is the HTML report of a failing run of the shrunk schedule.
	Picture string
}

// Shrink runs the seed as drawn, then reduces its schedule.
func Shrink(ctx context.Context, so Options) (*Result, error) {
	start := time.Now()
	if so.K < 1 || so.N < so.K {
		return nil, fmt.Errorf("--shrink-replays %d/%d: want K/N with 1 <= K <= N", so.K, so.N)
	}
	if so.Log == nil {
		so.Log = io.Discard
	}
	res := &Result{N: so.N}
	var drawn []checks.Planned
	first := so.Run
	first.Plan.Used = func(p []checks.Planned) { drawn = p }
	rep, err := run(ctx, so, first, res, "the seed as drawn")
	if err != nil {
		return nil, err
	}
	if res.Kind = so.Kind; res.Kind == "" {
		res.Kind = firstKind(rep)
	}
	if res.Kind == "" || !failsWith(rep, res.Kind) {
		return nil, fmt.Errorf("seed %d does not fail with %s: nothing to shrink", so.Run.Seed, orAny(res.Kind))
	}
	if len(drawn) == 0 {
		return nil, fmt.Errorf("seed %d's run used no chaos schedule", so.Run.Seed)
	}
	res.Before = len(drawn)
	fmt.Fprintf(so.Log, "shrink: seed %d fails with %s; %d intents; a schedule counts as failing when %d of %d replays fail with it\n",
		so.Run.Seed, res.Kind, len(drawn), so.K, so.N)
	budget := func() bool {
		if so.MaxRuns > 0 && res.Runs >= so.MaxRuns {
			res.Exhausted = true
			return false
		}
		return true
	}
	test := func(ctx context.Context, plan []checks.Planned) (bool, error) {
		fails := 0
		for i := range so.N {
			o := so.Run
			o.Plan.Given = plan
			rep, err := run(ctx, so, o, res, fmt.Sprintf("%d intents, replay %d", len(plan), i+1))
			if err != nil {
				return false, err
			}
			if failsWith(rep, res.Kind) {
				fails++
			}
			if fails >= so.K {
				fmt.Fprintf(so.Log, "shrink: %d intents still fail (run %d)\n", len(plan), res.Runs)
				return true, nil
			}
			if fails+(so.N-i-1) < so.K {
				return false, nil
			}
		}
		return false, nil
	}
	plan, err := ddmin(ctx, drawn, test, budget)
	if err != nil {
		return nil, err
	}
	if plan, err = simplify(ctx, plan, test, budget); err != nil {
		return nil, err
	}
	res.Plan = checks.Renumber(plan)
	res.After = len(res.Plan)
	// The final word: every one of N replays, none skipped, the last
	// failing one's report kept as the picture.
	pic := filepath.Join(so.Dir, "picture")
	for i := range so.N {
		o := so.Run
		o.Plan.Given = res.Plan
		o.HTML = filepath.Join(so.Dir, fmt.Sprintf("confirm-%d", i+1))
		o.JSON = filepath.Join(o.HTML, "report.json")
		rep, err := run(ctx, so, o, res, fmt.Sprintf("confirm %d of %d", i+1, so.N))
		if err != nil {
			return nil, err
		}
		if failsWith(rep, res.Kind) {
			res.Confirmed++
			if res.Picture == "" {
				_ = os.RemoveAll(pic)
				if os.Rename(o.HTML, pic) == nil {
					res.Picture = filepath.Join(pic, "index.html")
					continue
				}
			}
		}
		_ = os.RemoveAll(o.HTML)
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// run is one run of the shrink, quiet, its reports dropped unless asked.
func run(ctx context.Context, so Options, o conform.Options, res *Result, what string) (*report.Report, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o.Quiet, o.Stdout, o.Stderr = true, io.Discard, io.Discard
	if o.HTML == "" {
		// A run whose reports are not kept writes them here (the
		// reference writes an HTML report wherever it is not told to).
		o.HTML, o.JSON, o.JUnit = filepath.Join(so.Dir, "scratch"), "", ""
		defer os.RemoveAll(o.HTML)
	}
	res.Runs++
	code, rep := so.Runner(ctx, o)
	if rep == nil || code > conform.ExitViolation {
		return nil, fmt.Errorf("run %d (%s): exit %d with no verdict: the config or the target stopped the shrink", res.Runs, what, code)
	}
	return rep, nil
}

// failsWith reports whether a run found kind.
func failsWith(rep *report.Report, kind string) bool {
	for _, r := range rep.Results {
		for _, f := range r.Findings {
			if f.Kind == kind && rep.Fails(r) {
				return true
			}
		}
	}
	return false
}

func firstKind(rep *report.Report) string {
	for _, r := range rep.Results {
		if !rep.Fails(r) {
			continue
		}
		for _, f := range r.Findings {
			return f.Kind
		}
	}
	return ""
}

func orAny(k string) string {
	if k == "" {
		return "any finding"
	}
	return k
}
