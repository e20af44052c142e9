package conform

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// A run's temp dir whose owner and watchdog are both gone (the watchdog
// killed with it) is removed by the next run's sweep; one whose owner
// lives is left alone.
func TestSweepRemovesOnlyDeadRunsDirs(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	mk := func(owner int) string {
		d, err := os.MkdirTemp("", "idemcheck-run-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.RemoveAll(d) })
		if err := os.WriteFile(filepath.Join(d, ownerFile), []byte(strconv.Itoa(owner)), 0o644); err != nil {
			t.Fatal(err)
		}
		return d
	}
	gone, alive := mk(dead.Process.Pid), mk(os.Getppid())
	sweepStale()
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("the dir of a run that is gone (pid %d) was kept: %v", dead.Process.Pid, err)
	}
	if _, err := os.Stat(alive); err != nil {
		t.Errorf("the dir of a live run was removed: %v", err)
	}
}

// A restarted target's old group leaves the watchdog's list: the watchdog
// kills what the list names when idemcheck dies, and a reaped group's pgid
// may be another's by then.
func TestWatchdogForgetsAReapedGroup(t *testing.T) {
	w, err := startWatchdog(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer w.stop()
	// Pids above the kernel's pid_max: no group of this machine's.
	w.watch(1 << 30)
	w.watch(1<<30 + 1)
	w.forget(1 << 30)
	b, err := os.ReadFile(w.file)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), strconv.Itoa(1<<30+1)+"\n"; got != want {
		t.Fatalf("the watchdog's groups after a forget: %q, want %q", got, want)
	}
}
