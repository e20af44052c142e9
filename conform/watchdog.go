package conform

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// watchdog ends the target's process groups if idemcheck itself dies
// (SIGKILL included). Pdeathsig reaches only the process idemcheck started:
// behind a wrapper (sh -c, npm start) the real server is a grandchild and
// would outlive the run. The watchdog is a tiny shell loop in a group of its
// own, without Pdeathsig, that polls idemcheck's pid and then kills every
// group listed in its file, and removes the run's temp dir. A normal run
// stops it.
type watchdog struct {
	file string
	cmd  *exec.Cmd
	mu   sync.Mutex
	pgs  map[int]bool
}

func startWatchdog(dir string) (*watchdog, error) {
	w := &watchdog{file: filepath.Join(dir, "target-groups"), pgs: map[int]bool{}}
	if err := os.WriteFile(w.file, nil, 0o644); err != nil {
		return nil, err
	}
	// Then the run's temp dir goes too: a killed run leaves nothing behind
	// even when no later run comes to sweep it (sweepStale stays for a
	// watchdog that was killed with it).
	script := fmt.Sprintf(`while kill -0 %d 2>/dev/null; do sleep 0.5; done; for g in $(cat %q); do kill -s KILL -- -$g 2>/dev/null; done; rm -rf %q`, os.Getpid(), w.file, dir)
	w.cmd = exec.Command("sh", "-c", script)
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := w.cmd.Start(); err != nil {
		return nil, err
	}
	// A later run's sweep must leave this dir alone until the watchdog has
	// read the groups file: the watchdog polls twice a second, and a sweep
	// that came first would leave it nothing to kill.
	_ = os.WriteFile(filepath.Join(dir, watchdogFile), []byte(strconv.Itoa(w.cmd.Process.Pid)), 0o644)
	return w, nil
}

// watch adds a process group (the leader's pid) to what the watchdog kills.
func (w *watchdog) watch(pgid int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pgs[pgid] = true
	w.writeLocked()
}

// forget drops a group whose leader was reaped and whose group was killed
// (a restarted target's old one): its pgid may be a new, unrelated
// group's by the time the watchdog fires, and a soak's chaos restarts its
// target again and again.
func (w *watchdog) forget(pgid int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.pgs, pgid)
	w.writeLocked()
}

func (w *watchdog) writeLocked() {
	var b strings.Builder
	for g := range w.pgs {
		b.WriteString(strconv.Itoa(g) + "\n")
	}
	// Write then rename: the watchdog's cat never sees a truncated file.
	tmp := w.file + ".new"
	if os.WriteFile(tmp, []byte(b.String()), 0o644) == nil {
		_ = os.Rename(tmp, w.file)
	}
}

func (w *watchdog) stop() {
	if w == nil || w.cmd == nil {
		return
	}
	_ = syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
	_ = w.cmd.Wait()
}

// ownerFile names the pid of the run that owns a temp dir, so a later run
// can remove what a SIGKILLed one left.
const ownerFile = "idemcheck-owner.pid"

// watchdogFile names the pid of the dir's watchdog.
const watchdogFile = "idemcheck-watchdog.pid"

func writeOwner(dir string) {
	_ = os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644)
}

// sweepStale removes the temp dirs of runs whose process is gone.
func sweepStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "idemcheck-run-*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, ownerFile))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); err == syscall.ESRCH && !watchdogAlive(d) {
			_ = os.RemoveAll(d)
		}
	}
}

// watchdogAlive says whether the watchdog of run dir d still runs. Its
// script names the dir, which tells it from an unrelated process that took
// its pid; where /proc cannot say, a live pid counts as the watchdog.
func watchdogAlive(d string) bool {
	b, err := os.ReadFile(filepath.Join(d, watchdogFile))
	if err != nil {
		return false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 || syscall.Kill(pid, 0) == syscall.ESRCH {
		return false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return true
	}
	return strings.Contains(string(cmdline), d)
}
