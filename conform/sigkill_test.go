package conform

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// idemcheck SIGKILLed in the middle of a run against a service behind
// sh -c: the server (a grandchild) must not outlive it, nor its temp dir,
// which its watchdog removes.
func TestSIGKILLedRunLeavesNothingRunning(t *testing.T) {
	t.Parallel()
	tag := "idemcheck-test-kill-" + strconv.Itoa(os.Getpid())
	f := fixture{command: fmt.Sprintf(`"sh", "-c", "%s --flaw none --tag %s; exit $?"`, paysvcBin, tag), quiesce: "60s"}
	cfg := f.config(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "IDEMCHECK_TEST_RUN="+cfg)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	// Wait until the run sits in its quiet period, the target up.
	sc := bufio.NewScanner(stderr)
	quiet := false
	for sc.Scan() {
		if strings.Contains(sc.Text(), "quiet period") {
			quiet = true
			break
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
	if !quiet || len(processesWith(tag)) == 0 {
		t.Fatalf("the run did not reach its quiet period with the target up (target processes %v)", processesWith(tag))
	}
	dirs := ownedBy(cmd.Process.Pid)
	if len(dirs) != 1 {
		t.Fatalf("the run owned %d temp dirs, want 1: %v", len(dirs), dirs)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	// Another run starting now sweeps the dead run's dir before its
	// watchdog (polling twice a second) has read the groups to kill: the
	// sweep must leave the dir to the watchdog.
	sweepStale()
	// The watchdog's rm -rf removes its pid file before the dir, so the
	// watchdog looks gone (watchdogAlive reads that file) a moment before
	// the dir is: wait for the dir too.
	gone := func(d string) bool { _, err := os.Stat(d); return os.IsNotExist(err) }
	for deadline := time.Now().Add(5 * time.Second); (len(processesWith(tag)) > 0 || watchdogAlive(dirs[0]) || !gone(dirs[0])) && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
	}
	if left := processesWith(tag); len(left) > 0 {
		b, _ := os.ReadFile(filepath.Join(dirs[0], "target-groups"))
		out, _ := exec.Command("ps", "-eo", "pid,pgid,ppid,stat,args").CombinedOutput()
		t.Logf("groups file %q\n%s", b, out)
		t.Fatalf("target processes outlived the SIGKILLed run: %v", left)
	}
	if watchdogAlive(dirs[0]) {
		t.Fatalf("the watchdog of %s still runs 5s after the run died", dirs[0])
	}
	// The watchdog removed the dir on its way out, with no later run.
	if !gone(dirs[0]) {
		t.Fatalf("the watchdog left %s 5s after the run died", dirs[0])
	}
}

// ownedBy lists the run temp dirs whose owner file names pid.
func ownedBy(pid int) []string {
	var out []string
	ds, _ := filepath.Glob(filepath.Join(os.TempDir(), "idemcheck-run-*"))
	for _, d := range ds {
		b, err := os.ReadFile(filepath.Join(d, ownerFile))
		if err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(pid) {
			out = append(out, d)
		}
	}
	return out
}
