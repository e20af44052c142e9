package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/idemcheck/idemcheck/reference"
)

// runKillMatrix is the chaos section's kill matrix (issue 30): every switch
// `run --reference --chaos` accepts, and the reference with none, each under
// 5 seeds of 20 s (one with --quick), on the bench's servers. It reports the
// share of switch runs caught with their exact kinds and the seconds of chaos
// before the first violating intent (median and worst of the caught runs);
// the table goes to the report directory and the log.
func runKillMatrix(ctx context.Context, r *runner) error {
	seeds := r.size(1, 5)
	seed := r.o.Seed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano()>>1) + 1
	}
	dir, lf, err := r.sectionDir("killmatrix")
	if err != nil {
		return err
	}
	defer lf.Close()
	m := reference.Matrix{Duration: 20 * time.Second, Services: r.srv.stack, Out: dir, Log: lf}
	for i := range seeds {
		m.Seeds = append(m.Seeds, seed+uint64(i))
	}
	r.logf("kill matrix: seeds %d..%d, %s each (rerun: idemcheck bench --only killmatrix --seed %d); reports %s", seed, seed+uint64(seeds)-1, m.Duration, seed, dir)
	runs := m.Run(ctx, func(mr reference.MatrixRun) { r.logf("kill matrix: %s", mr) })
	if len(runs) == 0 {
		return fmt.Errorf("the kill matrix ran nothing (log %s)", lf.Name())
	}
	var table bytes.Buffer
	reference.PrintMatrix(&table, runs)
	if err := os.WriteFile(filepath.Join(dir, "matrix.txt"), table.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprint(r.log, table.String())
	s := reference.Summarize(runs)
	r.row(fmt.Sprintf("kill matrix, %d switches x %d seeds of %s", s.Runs/max(seeds, 1), seeds, m.Duration),
		fmt.Sprintf("%d/%d caught", s.Caught, s.Runs), fmt.Sprintf("no switch: %d/%d clean", s.CleanRuns, s.NoSwitchRuns),
		fmt.Sprintf("detect p50 %.1f s, max %.1f s", s.DetectP50, s.DetectMax))
	r.key("chaos_kill_rate", "%.2f", s.KillRate)
	if s.CoverageMean >= 0 {
		r.key("chaos_coverage_mean_pct", "%.0f", s.CoverageMean)
		r.key("chaos_coverage_min_pct", "%.0f", s.CoverageMin)
	}
	r.key("chaos_detect_s_p50", "%.1f", s.DetectP50)
	r.key("chaos_detect_s_max", "%.1f", s.DetectMax)
	r.key("chaos_clean_runs", "%s", fmt.Sprintf("%d/%d", s.CleanRuns, s.NoSwitchRuns))
	if s.CleanRuns != s.NoSwitchRuns {
		return fmt.Errorf("the reference with no switch had findings in %d of %d kill-matrix runs (table %s)", s.NoSwitchRuns-s.CleanRuns, s.NoSwitchRuns, filepath.Join(dir, "matrix.txt"))
	}
	return nil
}
