package conform

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/internal/logtail"
	"github.com/idemcheck/idemcheck/internal/onecopy"
)

// controlProc is an instance idemcheck did not start, controlled through the
// user's own commands (target.control) as a faults.Proc. No command is taken
// at its word: each action counts only when its effect is then seen from
// outside, at the instance's base URL.
type controlProc struct {
	c     *config.Control
	i     int
	base  string // the instance's base URL
	path  string // target.ready
	ready func(context.Context) error
	// down is set by a kill that was seen to take effect, cleared by a
	// restart that was seen to.
	down atomic.Bool
}

func (p *controlProc) name() string { return p.c.Instances[p.i] }

// run runs one action's command, bounded by the control timeout; an error
// names the command and quotes its output.
func (p *controlProc) run(ctx context.Context, action string, cmd []string) error {
	if len(cmd) == 0 {
		return fmt.Errorf("target.control.%s is not set: idemcheck cannot %s %s", action, action, p.name())
	}
	argv := p.c.Argv(cmd, p.i)
	ctx, cancel := context.WithTimeout(ctx, p.c.TimeoutD())
	defer cancel()
	var out bytes.Buffer
	x := exec.CommandContext(ctx, argv[0], argv[1:]...)
	x.Stdout, x.Stderr = &out, &out
	if err := x.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("no exit within %s", p.c.TimeoutD())
		}
		return fmt.Errorf("target.control.%s %q for %s: %v; output: %s", action, argv, p.name(), err, output(out.String()))
	}
	return nil
}

// answers reports whether the instance gives any HTTP answer at its ready
// path within a short time: a killed or frozen instance gives none.
func (p *controlProc) answers(ctx context.Context, path string) bool {
	ctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(p.base, "/")+path, nil)
	if err != nil {
		return false
	}
	return onecopy.Do(onecopy.Client(0), req, 1<<10).Status != 0
}

// silent waits until the instance stops answering, after an action that
// must make it so.
func (p *controlProc) silent(ctx context.Context, action string) error {
	deadline := time.Now().Add(p.c.TimeoutD())
	for p.answers(ctx, p.path) {
		if time.Now().After(deadline) {
			return fmt.Errorf("target.control.%s exited 0, but %s still answers at %s %s later: the command did not %s it", action, p.name(), p.base, p.c.TimeoutD(), action)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// Kill runs the kill command and returns once the instance is silent.
func (p *controlProc) Kill() error {
	ctx := context.Background()
	if err := p.run(ctx, "kill", p.c.Kill); err != nil {
		return err
	}
	if err := p.silent(ctx, "kill"); err != nil {
		return err
	}
	p.down.Store(true)
	return nil
}

// Pause runs the pause command and returns once the instance is silent
// (frozen: it holds its connections and answers nothing).
func (p *controlProc) Pause() error {
	ctx := context.Background()
	if err := p.run(ctx, "pause", p.c.Pause); err != nil {
		return err
	}
	return p.silent(ctx, "pause")
}

// Resume runs the resume command and returns once the instance answers.
func (p *controlProc) Resume() error {
	ctx := context.Background()
	if err := p.run(ctx, "resume", p.c.Resume); err != nil {
		return err
	}
	return p.back(ctx, "resume")
}

// Restart runs the restart command and returns once the instance serves.
// An instance still up is killed first (and seen to die): a restart command
// run beside a live instance could fail to bind and leave the old one
// serving, and a restart nobody saw happen would prove nothing.
func (p *controlProc) Restart(ctx context.Context) error {
	if !p.down.Load() {
		if err := p.Kill(); err != nil {
			return err
		}
	}
	if err := p.run(ctx, "restart", p.c.Restart); err != nil {
		return err
	}
	if err := p.back(ctx, "restart"); err != nil {
		return err
	}
	p.down.Store(false)
	return nil
}

func (p *controlProc) back(ctx context.Context, action string) error {
	if p.ready == nil {
		return nil
	}
	if err := p.ready(ctx); err != nil {
		return fmt.Errorf("target.control.%s exited 0, but %s did not answer again at %s: %w", action, p.name(), p.base, err)
	}
	return nil
}

// Exited is true after a kill seen to take effect, until a restart is.
func (p *controlProc) Exited() bool { return p.down.Load() }

// CanPause is false when the config gives no pause command: the freeze
// checks and faults are then n/a, not errors.
func (p *controlProc) CanPause() bool { return p.c.CanPause() }

// output is a command's last lines on one line, for an error.
func output(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return "(none)"
	}
	return strings.ReplaceAll(logtail.Of(s, 10), "\n", " | ")
}
