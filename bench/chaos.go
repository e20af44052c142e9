package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/idemcheck/idemcheck/conform"
	"github.com/idemcheck/idemcheck/internal/logtail"
	"github.com/idemcheck/idemcheck/reference"
)

// runChaos runs `idemcheck run --reference --chaos` on the bench's servers
// and reports the intents the chaos driver sustained per second, the
// checker's judgement of the whole history included; the run must pass.
func runChaos(ctx context.Context, r *runner) error {
	d := time.Duration(r.size(10, 30)) * time.Second
	dir := filepath.Join(r.o.Out, "chaos")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	logPath := filepath.Join(dir, "run.log")
	lf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer lf.Close()
	o := conform.Options{Chaos: true, Duration: d, Seed: r.o.Seed, Quiet: true, HTML: dir, JSON: filepath.Join(dir, "report.json"),
		Stdout: lf, Stderr: lf}
	t0 := time.Now()
	code, rep := reference.RunStack(ctx, o, reference.Stack{Services: r.srv.stack})
	whole := time.Since(t0)
	if rep == nil {
		return fmt.Errorf("the chaos run did not start (exit %d); log %s:\n%s", code, logPath, logtail.Lines(logPath, 30))
	}
	r.logf("chaos seed %d (rerun: idemcheck bench --only chaos --seed %d); report %s", rep.Seed, rep.Seed, dir)
	if code != conform.ExitPass {
		return fmt.Errorf("the chaos run failed (exit %d, seed %d): report %s, log %s", code, rep.Seed, dir, logPath)
	}
	for _, res := range rep.Results {
		if res.ID != "chaos" {
			continue
		}
		intents := map[string]bool{}
		for _, op := range res.History {
			if op.Intent != "" {
				intents[op.Intent] = true
			}
		}
		if len(intents) == 0 {
			return fmt.Errorf("the chaos check recorded no intents (report %s)", dir)
		}
		rate := float64(len(intents)) / res.Elapsed.Seconds()
		r.row(fmt.Sprintf("chaos driver, --duration %v schedule: %d intents, %d ops", d, len(intents), len(res.History)),
			fmt.Sprintf("%.1f intents/s", rate), fmt.Sprintf("check %.1f s incl. the checker; whole run %.1f s", res.Elapsed.Seconds(), whole.Seconds()), "")
		r.key("chaos_intents_per_s", "%.1f", rate)
		r.key("chaos_seed", "%d", rep.Seed)
		return nil
	}
	return fmt.Errorf("the chaos run has no chaos result (report %s)", dir)
}
