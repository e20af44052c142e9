package faults

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// sweeperEnv marks the process StartSweeper re-executes: it waits for its
// parent to die and then removes the proxies listed in its file.
const sweeperEnv = "IDEMCHECK_TOXIPROXY_SWEEPER"

func init() {
	// The sweeper is this same binary (idemcheck, or a test binary that
	// runs it), re-executed: a killed run's proxies must be removed by
	// something that outlives it, and the image may hold no shell or curl.
	if spec := os.Getenv(sweeperEnv); spec != "" {
		os.Exit(runSweeper(spec))
	}
}

// sweeper is the re-executed watcher of one run's remote proxies.
type sweeper struct {
	file string
	cmd  *exec.Cmd
}

// StartSweeper starts the process that removes the run's proxies from the
// server if idemcheck dies before Stop (SIGKILL included). dir holds its list.
func (r *RemoteToxiproxy) StartSweeper(dir string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("toxiproxy sweeper: %w", err)
	}
	file := filepath.Join(dir, "toxiproxy-proxies")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		return fmt.Errorf("toxiproxy sweeper: %w", err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), sweeperEnv+"="+strconv.Itoa(os.Getpid())+" "+r.api+" "+file)
	// Its own group: a signal to idemcheck's group must not end it too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("toxiproxy sweeper: start %s: %w", exe, err)
	}
	sw := &sweeper{file: file, cmd: cmd}
	r.mu.Lock()
	r.sweeper = sw
	sw.write(r.made)
	r.mu.Unlock()
	return nil
}

func (s *sweeper) write(names []string) {
	tmp := s.file + ".new"
	if os.WriteFile(tmp, []byte(strings.Join(names, "\n")), 0o644) == nil {
		_ = os.Rename(tmp, s.file)
	}
}

func (s *sweeper) stop() {
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}

// runSweeper is the sweeper's whole life: "PID API FILE".
func runSweeper(spec string) int {
	f := strings.Fields(spec)
	if len(f) != 3 {
		return 2
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil || pid <= 1 {
		return 2
	}
	for syscall.Kill(pid, 0) == nil && os.Getppid() == pid {
		time.Sleep(300 * time.Millisecond)
	}
	b, err := os.ReadFile(f[2])
	if err != nil {
		return 1
	}
	var names []string
	for _, n := range strings.Split(string(b), "\n") {
		if n = strings.TrimSpace(n); strings.HasPrefix(n, ProxyPrefix) {
			names = append(names, n)
		}
	}
	if err := deleteProxies(f[1], names); err != nil {
		fmt.Fprintln(os.Stderr, "idemcheck toxiproxy sweeper:", err)
		return 1
	}
	return 0
}
