package conform

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/internal/freeport"
)

// proc is a started target instance as a faults.Proc, which checks and the
// fault catalogue kill, pause and restart.
type proc struct {
	p    *faults.Process
	base string
	wd   *watchdog
	// grace is target.stop_grace: SIGTERM, then SIGKILL after it.
	grace time.Duration
	// ready waits until the instance answers again (Restart returns once
	// it serves).
	ready func(context.Context) error
}

func (p proc) Exited() bool { return p.p.Exited() }

// Kill SIGKILLs the instance's process group and returns once its port has
// stopped answering: a restart that finds the old server still listening
// (an orphan behind a wrapper) would test nothing.
func (p proc) Kill() error {
	if err := p.p.Kill(); err != nil {
		return err
	}
	// Wait reports the kill itself as the exit error; what matters is that it ended.
	_ = p.p.Wait(10 * time.Second)
	if !p.p.Exited() {
		return fmt.Errorf("%s (pid %d) still runs after SIGKILL", p.p.Name(), p.p.PID())
	}
	return p.portClosed()
}

func (p proc) portClosed() error {
	u, err := url.Parse(p.base)
	if err != nil || u.Host == "" {
		return nil
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", u.Host, 200*time.Millisecond)
		if err != nil {
			return nil
		}
		c.Close()
		if time.Now().After(deadline) {
			return fmt.Errorf("%s still answers on %s 10s after %s was killed: something else serves the port", p.base, u.Host, p.p.Name())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
func (p proc) Pause() error  { return p.p.Pause() }
func (p proc) Resume() error { return p.p.Resume() }

// Stop ends the instance as an orchestrator does: SIGTERM, then SIGKILL
// after target.stop_grace. It reports whether the instance ended within
// the grace (false: it was SIGKILLed).
func (p proc) Stop() (bool, error) {
	if p.p.Exited() {
		return true, nil
	}
	graceful, err := p.p.Terminate(p.grace)
	if err != nil {
		return false, err
	}
	return graceful, p.portClosed()
}

// Restart stops a running process gracefully (or finds it dead), starts a
// fresh copy and waits until it serves.
func (p proc) Restart(ctx context.Context) error {
	if !p.p.Exited() {
		if _, err := p.Stop(); err != nil {
			return err
		}
	}
	if err := p.portClosed(); err != nil {
		return err
	}
	// Reaped, and its group killed with it (faults.Process): the watchdog
	// must not kill that pgid later.
	old := p.p.PID()
	if err := p.p.Restart(); err != nil {
		return err
	}
	p.wd.forget(old)
	p.wd.watch(p.p.PID())
	if p.ready == nil {
		return nil
	}
	return p.ready(ctx)
}

// started is what startTargets brought up.
type started struct {
	procs []*faults.Process
	bases []string
	// expand replaces ${PORT_n} with the picked ports.
	expand func(string) string
}

// startTargets starts target.instances copies of target.command, each on its
// own free port, sharing STATE_DIR so the copies can share a store and a
// restarted copy finds its files.
func startTargets(cfg *config.Config, env map[string]string, stateDir, logDir string, wd *watchdog) (*started, error) {
	st := &started{}
	ports := map[string]string{}
	for i := 0; i < cfg.Target.Instances; i++ {
		port, err := freeport.Get()
		if err != nil {
			return st, err
		}
		ports[fmt.Sprintf("${PORT_%d}", i)] = strconv.Itoa(port)
	}
	expand := func(s string) string {
		for k, v := range ports {
			s = strings.ReplaceAll(s, k, v)
		}
		return s
	}
	st.expand = expand
	for _, b := range cfg.Target.BaseURLs {
		st.bases = append(st.bases, expand(b))
	}
	for i := 0; i < cfg.Target.Instances; i++ {
		port := ports[fmt.Sprintf("${PORT_%d}", i)]
		args := make([]string, len(cfg.Target.Command))
		for j, a := range cfg.Target.Command {
			args[j] = os.Expand(expand(a), func(k string) string {
				if k == "PORT" {
					return port
				}
				if v, ok := env[k]; ok {
					return v
				}
				return os.Getenv(k)
			})
		}
		cmd := exec.Command(args[0], args[1:]...)
		// Its own process group, so that kill, pause and restart reach the
		// server behind a wrapper (sh -c, go run, npm start); SIGKILL if
		// idemcheck dies.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		cmd.Env = append(os.Environ(), "PORT="+port, "STATE_DIR="+stateDir, fmt.Sprintf("INSTANCE=%d", i))
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		for k, v := range cfg.Target.Env {
			cmd.Env = append(cmd.Env, k+"="+os.Expand(v, func(k string) string {
				if k == "PORT" {
					return port
				}
				if v, ok := env[k]; ok {
					return v
				}
				return os.Getenv(k)
			}))
		}
		p, err := faults.StartProcess(fmt.Sprintf("target-%d", i), cmd, logDir)
		if err != nil {
			return st, fmt.Errorf("start %q: %w", strings.Join(cfg.Target.Command, " "), err)
		}
		wd.watch(p.PID())
		st.procs = append(st.procs, p)
	}
	return st, nil
}

func (st *started) stop() {
	for _, p := range st.procs {
		_ = p.Stop(5 * time.Second)
	}
}

// waitReady polls base+path until any HTTP answer, the process dies, or the deadline.
func waitReady(ctx context.Context, reach func(context.Context) error, p *faults.Process, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		if last = reach(ctx); last == nil {
			return nil
		}
		if p != nil && p.Exited() {
			return fmt.Errorf("the target process exited (log: %s): %v", p.LogPath(), last)
		}
		if time.Now().After(deadline) {
			return last
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
