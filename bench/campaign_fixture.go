package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// fixtureFlaw is the purpose-built service's flaw the fixture campaign
// runs against: a check, then an insert, so two copies of one request
// that meet both charge (double-charge), a bug most seeds find.
const fixtureFlaw = "check-then-insert"

// runFixtureCampaign is the campaign figure on a service the user owns
// rather than on the reference: paysvc, built from this checkout with one
// flaw, probed into a config by `init --probe` as a new user would, then
// `run --chaos --seeds` as a shard runs it, a child process of this
// binary. The probed config is used as written (its 30 s quiesce
// included), so the wall figure is a user's, and the core-hour one counts
// the child, the service and every server the run started (they are
// waited for, so the kernel's children account holds them).
func runFixtureCampaign(ctx context.Context, r *runner, dir string, lf *os.File) error {
	seeds := r.size(2, 8)
	d := time.Duration(r.size(5, 10)) * time.Second
	first := r.firstSeed()
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	work := filepath.Join(dir, "fixture")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	exe, cfg, err := probedPaysvc(ctx, root, work, fixtureFlaw)
	if err != nil {
		return err
	}
	reports := filepath.Join(work, "reports")
	last := first + uint64(seeds) - 1
	r.logf("campaign on paysvc --flaw %s: seeds %d..%d of %s; reports %s", fixtureFlaw, first, last, d, reports)
	cmd := exec.CommandContext(ctx, exe, "run", "--config", cfg, "--chaos", "--duration", d.String(), "--quiet",
		"--seeds", fmt.Sprintf("%d-%d", first, last), "--out", reports)
	cmd.Dir, cmd.Stdout, cmd.Stderr = work, lf, lf
	before, t0 := treeCPU(), time.Now()
	err = cmd.Run()
	wall, cpu := time.Since(t0), treeCPU()-before
	// A campaign that found the flaw exits 1; anything else is not a
	// campaign that ran.
	var ee *exec.ExitError
	if err != nil && (!errors.As(err, &ee) || ee.ExitCode() != 1) {
		return fmt.Errorf("the fixture campaign did not run: %v; log %s", err, lf.Name())
	}
	label := fmt.Sprintf("campaign on a fixture (paysvc --flaw %s, probed config), %d seeds of %s", fixtureFlaw, seeds, d)
	return campaignFigures(r, label, "fixture_campaign_", []string{reports}, seeds, wall, cpu)
}
