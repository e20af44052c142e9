package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"time"
)

// runChecker10M times `idemcheck gen` and `idemcheck check` on 10M ops, each
// as a child process of this very binary, so the check's peak RSS is its
// own (the child's rusage Maxrss, as the kernel counts it), not this
// process's: the kernel counts from this process's peak (vfork), so it runs
// while this process is small and refuses a figure that does not exceed it.
// The check streams the file in pieces (checker.CheckFile).
func runChecker10M(ctx context.Context, r *runner, dir string) error {
	const ops = 10_000_000
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	file := filepath.Join(dir, "10m.jsonl")
	defer os.Remove(file)
	t0 := time.Now()
	if _, _, err := child(ctx, exe, "gen", "--ops", fmt.Sprint(ops), "--seed", "1", "--out", file); err != nil {
		return fmt.Errorf("idemcheck gen 10M: %w", err)
	}
	t1 := time.Now()
	var self syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
		return err
	}
	ru, out, err := child(ctx, exe, "check", file)
	if err != nil {
		return fmt.Errorf("idemcheck check 10M: %w", err)
	}
	t2 := time.Now()
	// Go starts a child with vfork, so the kernel's peak RSS of the child
	// starts from this process's own peak when it execs: only a figure above
	// that peak is the check's.
	if ru.Maxrss <= self.Maxrss {
		return fmt.Errorf("idemcheck check 10M: its peak RSS as reported (%d MB) does not exceed the bench's own (%d MB), so the check's own peak is unknown", ru.Maxrss/1024, self.Maxrss/1024)
	}
	// gen makes about the ops asked for; the per-op figures use what the
	// check read, from its summary line.
	m := checkedOps.FindSubmatch(out)
	if m == nil {
		return fmt.Errorf("idemcheck check 10M: no op count in its output:\n%s", out)
	}
	n, err := strconv.Atoi(string(m[1]))
	if err != nil || n == 0 {
		return fmt.Errorf("idemcheck check 10M: op count %q", m[1])
	}
	check := t2.Sub(t1).Seconds()
	rssMB := float64(ru.Maxrss) / 1024 // Linux reports KiB
	r.row(fmt.Sprintf("checker end to end, %d ops (gen + check, child processes)", n), fmt.Sprintf("%.1f s", t2.Sub(t0).Seconds()),
		fmt.Sprintf("check %.1f s", check), fmt.Sprintf("%.0f MB peak", rssMB))
	r.key("checker_10m_s", "%.1f", t2.Sub(t0).Seconds())
	r.key("checker_10m_check_s", "%.1f", check)
	r.key("checker_10m_rss_mb", "%.0f", rssMB)
	r.key("checker_10m_ops_per_s", "%.0f", float64(n)/check)
	r.key("checker_10m_bytes_per_op", "%.0f", float64(ru.Maxrss)*1024/float64(n))
	return nil
}

// checkedOps is the op count of idemcheck check's summary line.
var checkedOps = regexp.MustCompile(`violation\(s\) in (\d+) ops`)

// child runs exe with args and returns its resource usage and output.
func child(ctx context.Context, exe string, args ...string) (*syscall.Rusage, []byte, error) {
	ps, out, err := childIn(ctx, "", exe, args...)
	if err != nil {
		return nil, nil, err
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return nil, nil, fmt.Errorf("no rusage on this system")
	}
	return ru, out, nil
}
