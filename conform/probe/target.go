package probe

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/internal/freeport"
)

// target is the service the probe started; stop ends it and removes its dirs.
type target struct {
	p    *faults.Process
	base string
	dirs []string
}

func (t *target) stop() {
	if t.p != nil {
		_ = t.p.Stop(5 * time.Second)
	}
	for _, d := range t.dirs {
		_ = os.RemoveAll(d)
	}
}

// startTarget starts the command as `idemcheck run` does: its own process
// group, a free port in $PORT, fakepsp in $PSP_URL and $PSP_KEY, a state
// directory in $STATE_DIR; it returns once the service answers HTTP.
func startTarget(ctx context.Context, o *Options, psp pspUnderProbe) (*target, error) {
	t := &target{}
	port, err := freeport.Get()
	if err != nil {
		return nil, fail("pick a port for the command: %v", err)
	}
	ps := strconv.Itoa(port)
	t.base = strings.ReplaceAll(o.URL, "${PORT}", ps)
	state, err := os.MkdirTemp("", "idemcheck-probe-state-")
	if err != nil {
		return nil, fail("make a state dir: %v", err)
	}
	t.dirs = append(t.dirs, state)
	logs, err := os.MkdirTemp("", "idemcheck-probe-log-")
	if err != nil {
		return t, fail("make a log dir: %v", err)
	}
	t.dirs = append(t.dirs, logs)
	env := map[string]string{"PORT": ps, "PSP_URL": psp.URL(), "PSP_KEY": psp.SecretKey(), "STATE_DIR": state, "INSTANCE": "0",
		"PSP_WEBHOOK_SECRET": psp.WebhookSecret()}
	args := make([]string, len(o.Command))
	for i, a := range o.Command {
		args[i] = os.Expand(a, func(k string) string {
			if v, ok := env[k]; ok {
				return v
			}
			return os.Getenv(k)
		})
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	p, err := faults.StartProcess("target", cmd, logs)
	if err != nil {
		return t, fail("start %s: %v", strings.Join(o.Command, " "), err)
	}
	t.p = p
	d := driver.New(nil, nil)
	deadline := time.Now().Add(o.StartTimeout)
	for {
		err := d.Reachable(ctx, t.base, o.Ready)
		if err == nil {
			return t, nil
		}
		if p.Exited() {
			return t, fail("%s exited before answering GET %s%s; its last output:\n%s", strings.Join(o.Command, " "), t.base, o.Ready, lastLines(p.LogPath(), 15))
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return t, fail("%s started but GET %s%s did not answer within %s (%v); its last output:\n%s",
				strings.Join(o.Command, " "), t.base, o.Ready, o.StartTimeout, err, lastLines(p.LogPath(), 15))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func lastLines(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(no output: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
