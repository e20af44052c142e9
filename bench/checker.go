package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/checkcmd"
	"github.com/idemcheck/idemcheck/checker/history"
)

// runChecker times the checker end to end on 1M ops as a user meets it
// (`idemcheck gen` writes a seeded legal history, `idemcheck check` reads and
// checks it) next to Check alone on the same history in memory.
func runChecker(ctx context.Context, r *runner) error {
	const ops = 1_000_000
	dir, err := os.MkdirTemp("", "idemcheck-bench-checker-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	// The 10M children run first, while this process is still small: a
	// child's peak RSS as the kernel reports it is at least this process's
	// own peak (runChecker10M says why), which the 1M check below raises to
	// about 2 GB.
	if err := runChecker10M(ctx, r, dir); err != nil {
		return err
	}
	file := filepath.Join(dir, "1m.jsonl")
	runtime.GC()
	t0 := time.Now()
	if code := checkcmd.RunGen([]string{"--ops", fmt.Sprint(ops), "--seed", "1", "--out", file}, io.Discard, r.log); code != checkcmd.ExitOK {
		return fmt.Errorf("idemcheck gen: exit %d", code)
	}
	t1 := time.Now()
	if code := checkcmd.Run([]string{file}, io.Discard, r.log); code != checkcmd.ExitOK {
		return fmt.Errorf("idemcheck check on a generated legal history: exit %d", code)
	}
	t2 := time.Now()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	h, err := history.ReadJSONL(f)
	f.Close()
	if err != nil {
		return err
	}
	runtime.GC()
	t3 := time.Now()
	res := checker.Check(h, checker.CheckOptions{})
	only := time.Since(t3)
	if !res.Passed() {
		return fmt.Errorf("generated history did not pass:\n%s", res.Text())
	}
	e2e, gen, rc := t2.Sub(t0), t1.Sub(t0), t2.Sub(t1)
	r.row(fmt.Sprintf("checker end to end, %d ops (gen + write + read + check)", len(h)), fmt.Sprintf("%.2f s", e2e.Seconds()),
		fmt.Sprintf("check only %.2f s", only.Seconds()), fmt.Sprintf("%.2f", e2e.Seconds()/only.Seconds()))
	r.row("  of which gen + write / read + check", fmt.Sprintf("%.2f s / %.2f s", gen.Seconds(), rc.Seconds()),
		fmt.Sprintf("check only %.2f s", only.Seconds()), fmt.Sprintf("%.2f", rc.Seconds()/only.Seconds()))
	r.key("checker_1m_s", "%.2f", e2e.Seconds())
	r.key("checker_read_check_s", "%.2f", rc.Seconds())
	r.key("checker_check_only_s", "%.2f", only.Seconds())
	r.key("checker_1m_ops_per_s", "%.0f", float64(len(h))/rc.Seconds())
	return nil
}
