package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// runChecker10M times `idemcheck gen` and `idemcheck check` on 10M ops, each
// as a child process of this very binary, so the check's peak RSS is its
// own (the child's rusage Maxrss, as the kernel counts it), not this
// process's. The check streams the file in pieces (checker.CheckFile).
func runChecker10M(ctx context.Context, r *runner, dir string) error {
	const ops = 10_000_000
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	file := filepath.Join(dir, "10m.jsonl")
	defer os.Remove(file)
	t0 := time.Now()
	if _, err := child(ctx, exe, "gen", "--ops", fmt.Sprint(ops), "--seed", "1", "--out", file); err != nil {
		return fmt.Errorf("idemcheck gen 10M: %w", err)
	}
	t1 := time.Now()
	ru, err := child(ctx, exe, "check", file)
	if err != nil {
		return fmt.Errorf("idemcheck check 10M: %w", err)
	}
	t2 := time.Now()
	check := t2.Sub(t1).Seconds()
	rssMB := float64(ru.Maxrss) / 1024 // Linux reports KiB
	r.row(fmt.Sprintf("checker end to end, %d ops (gen + check, child processes)", ops), fmt.Sprintf("%.1f s", t2.Sub(t0).Seconds()),
		fmt.Sprintf("check %.1f s", check), fmt.Sprintf("%.0f MB peak", rssMB))
	r.key("checker_10m_s", "%.1f", t2.Sub(t0).Seconds())
	r.key("checker_10m_check_s", "%.1f", check)
	r.key("checker_10m_rss_mb", "%.0f", rssMB)
	r.key("checker_10m_ops_per_s", "%.0f", ops/check)
	r.key("checker_10m_bytes_per_op", "%.0f", float64(ru.Maxrss)*1024/ops)
	return nil
}

// child runs exe with args and returns its resource usage.
func child(ctx context.Context, exe string, args ...string) (*syscall.Rusage, error) {
	cmd := exec.CommandContext(ctx, exe, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%w\n%s", err, out)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return nil, fmt.Errorf("no rusage on this system")
	}
	return ru, nil
}
