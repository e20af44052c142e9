package faults

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Process is a tier process the harness started and may kill, pause, resume
// or restart. Started in its own process group (SysProcAttr.Setpgid), it is
// signalled as a group: behind a wrapper (sh -c, go run, npm start) the
// fault must reach the real server, not only the wrapper (docs/PITFALLS.md#process-groups).
type Process struct {
	name    string
	logPath string
	mk      func() *exec.Cmd

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error
	kills   int
	pauses  int
}

// StartProcess starts cmd, sending its output to a log file in logDir (a temp
// dir when empty). Restart runs a fresh copy of the same command.
func StartProcess(name string, cmd *exec.Cmd, logDir string) (*Process, error) {
	if logDir == "" {
		logDir = os.TempDir()
	}
	template := *cmd
	p := &Process{
		name:    name,
		logPath: filepath.Join(logDir, name+".log"),
		mk: func() *exec.Cmd {
			c := exec.Command(template.Path, template.Args[1:]...)
			c.Env, c.Dir, c.SysProcAttr = template.Env, template.Dir, template.SysProcAttr
			return c
		},
	}
	return p, p.start(cmd)
}

func (p *Process) start(cmd *exec.Cmd) error {
	logf, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("process %s: log: %w", p.name, err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("process %s: start: %w", p.name, err)
	}
	done := make(chan struct{})
	p.mu.Lock()
	p.cmd, p.done, p.waitErr = cmd, done, nil
	p.mu.Unlock()
	go func() {
		err := cmd.Wait()
		logf.Close()
		p.mu.Lock()
		p.waitErr = err
		p.mu.Unlock()
		close(done)
	}()
	return nil
}

// Name is the process's name in logs and reports.
func (p *Process) Name() string { return p.name }

// LogPath is where its stdout and stderr go.
func (p *Process) LogPath() string { return p.logPath }

// PID of the current incarnation.
func (p *Process) PID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd.Process.Pid
}

// Exited reports whether the current incarnation has ended.
func (p *Process) Exited() bool {
	p.mu.Lock()
	done := p.done
	p.mu.Unlock()
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// ExitCode is the current incarnation's exit status once it has ended (-1
// when a signal ended it); exited is false while it runs. A crash failpoint
// proves it fired by its own status (CrashExitCode), which no other way of
// dying gives.
func (p *Process) ExitCode() (code int, exited bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.done:
	default:
		return 0, false
	}
	if p.cmd.ProcessState == nil {
		return -1, true
	}
	return p.cmd.ProcessState.ExitCode(), true
}

// Wait blocks until the current incarnation ends or d passes.
func (p *Process) Wait(d time.Duration) error {
	p.mu.Lock()
	done := p.done
	p.mu.Unlock()
	select {
	case <-done:
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.waitErr
	case <-time.After(d):
		return fmt.Errorf("process %s (pid %d) still running after %s", p.name, p.PID(), d)
	}
}

// group reports whether the current incarnation leads its own process group.
func (p *Process) group() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd.SysProcAttr != nil && p.cmd.SysProcAttr.Setpgid
}

// target is the pid to signal: the negative pid (the whole group) for a
// group leader.
func (p *Process) target() int {
	if p.group() {
		return -p.PID()
	}
	return p.PID()
}

func (p *Process) signal(sig syscall.Signal) error {
	if p.Exited() {
		return fmt.Errorf("process %s: already exited", p.name)
	}
	return syscall.Kill(p.target(), sig)
}

// killGroup ends what is left of the group once its leader is gone (a
// wrapper's children). It is called right after the leader was reaped.
func (p *Process) killGroup() {
	if p.group() {
		_ = syscall.Kill(-p.PID(), syscall.SIGKILL)
	}
}

// Kill sends SIGKILL and waits for the process to be gone: a real crash, no cleanup.
func (p *Process) Kill() error {
	if err := p.signal(syscall.SIGKILL); err != nil {
		return err
	}
	p.mu.Lock()
	p.kills++
	p.mu.Unlock()
	_ = p.Wait(10 * time.Second)
	p.killGroup()
	return nil
}

// Pause freezes the process with SIGSTOP and returns once the kernel shows it
// stopped: a signal is delivered asynchronously, and a fault that has not
// taken effect yet is not a fault.
func (p *Process) Pause() error {
	if err := p.signal(syscall.SIGSTOP); err != nil {
		return err
	}
	if err := p.awaitState(true); err != nil {
		return err
	}
	p.mu.Lock()
	p.pauses++
	p.mu.Unlock()
	return nil
}

// Resume wakes a paused process with SIGCONT and returns once it runs again.
func (p *Process) Resume() error {
	if err := p.signal(syscall.SIGCONT); err != nil {
		return err
	}
	return p.awaitState(false)
}

func (p *Process) awaitState(paused bool) error {
	deadline := time.Now().Add(5 * time.Second)
	for p.Paused() != paused {
		if time.Now().After(deadline) {
			return fmt.Errorf("process %s (pid %d): still paused=%v after 5s", p.name, p.PID(), !paused)
		}
		time.Sleep(time.Millisecond)
	}
	return nil
}

// Paused reports whether the process is stopped, read from /proc so a pause
// the process made itself (a failpoint's SIGSTOP) counts too.
func (p *Process) Paused() bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.PID()))
	if err != nil {
		return false
	}
	// The state letter follows the command name's closing parenthesis.
	for i := len(b) - 1; i > 0; i-- {
		if b[i] == ')' && i+2 < len(b) {
			return b[i+2] == 'T'
		}
	}
	return false
}

// Fired counts the kills and pauses this harness applied, for asserting a
// fault fired.
func (p *Process) Fired() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return int64(p.kills + p.pauses)
}

// Restart starts a fresh copy of the command once the current one has ended
// (kill it first for a crash-restart).
func (p *Process) Restart() error {
	if !p.Exited() {
		return fmt.Errorf("process %s: restart while pid %d still runs; kill or stop it first", p.name, p.PID())
	}
	return p.start(p.mk())
}

// Stop ends the process: SIGTERM, then SIGKILL after grace. A paused process
// is resumed first so it can handle SIGTERM.
func (p *Process) Stop(grace time.Duration) error {
	_, err := p.Terminate(grace)
	return err
}

// Terminate is Stop that also says whether the process ended within the
// grace (false: the grace ran out and it was SIGKILLed).
func (p *Process) Terminate(grace time.Duration) (graceful bool, err error) {
	if p.Exited() {
		return true, nil
	}
	_ = syscall.Kill(p.target(), syscall.SIGCONT)
	_ = syscall.Kill(p.target(), syscall.SIGTERM)
	if err := p.Wait(grace); err == nil || p.Exited() {
		p.killGroup()
		return true, nil
	}
	_ = syscall.Kill(p.target(), syscall.SIGKILL)
	if err := p.Wait(10 * time.Second); err != nil && !p.Exited() {
		return false, errors.New("process " + p.name + ": did not die after SIGKILL")
	}
	p.killGroup()
	return false, nil
}
