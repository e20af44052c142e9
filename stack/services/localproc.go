package services

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// localProc is a server process this provider started, with its own temp dir.
type localProc struct {
	kind     Kind
	endpoint string
	version  string
	dir      string
	cmd      *exec.Cmd
	done     chan struct{}
	logPath  string
	// stopGracefully asks the server to shut down; SIGKILL follows if it does not.
	stopGracefully func(ctx context.Context) error
}

func (p *localProc) Kind() Kind       { return p.kind }
func (p *localProc) Endpoint() string { return p.endpoint }
func (p *localProc) Version() string  { return p.version }
func (p *localProc) PID() int         { return p.cmd.Process.Pid }

// Dir is the server's temp directory, removed by Stop.
func (p *localProc) Dir() string { return p.dir }

// LogPath is the server's own log, for diagnosing a failed start.
func (p *localProc) LogPath() string { return p.logPath }

func (p *localProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// startLocal starts cmd with its output in dir/server.log. The child dies with
// the harness (Pdeathsig) even if the harness itself is SIGKILLed.
func startLocal(kind Kind, dir string, cmd *exec.Cmd) (*localProc, error) {
	logPath := filepath.Join(dir, "server.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// Its own process group keeps a terminal's Ctrl-C from killing the server
	// before the harness has stopped it in order.
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("%s: start %s: %w", kind, cmd.Path, err)
	}
	p := &localProc{kind: kind, dir: dir, cmd: cmd, done: make(chan struct{}), logPath: logPath}
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	return p, nil
}

// Stop ends the server (gracefully, then SIGKILL on its pid) and removes its directory.
func (p *localProc) Stop(ctx context.Context) error {
	if !p.exited() {
		// A paused server cannot shut down; wake it first.
		_ = syscall.Kill(p.PID(), syscall.SIGCONT)
		if p.stopGracefully != nil {
			gctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			_ = p.stopGracefully(gctx)
			cancel()
		}
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(p.PID(), syscall.SIGKILL)
			select {
			case <-p.done:
			case <-time.After(10 * time.Second):
				return fmt.Errorf("%s: pid %d did not exit after SIGKILL", p.kind, p.PID())
			}
		}
	}
	if err := os.RemoveAll(p.dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s: remove %s: %w", p.kind, p.dir, err)
	}
	return nil
}

func tempDir(kind Kind) (string, error) {
	d, err := os.MkdirTemp("", "idemcheck-"+string(kind)+"-")
	if err == nil {
		writeOwner(d)
	}
	return d, err
}
