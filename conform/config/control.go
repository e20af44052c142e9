package config

import (
	"fmt"
	"strings"
	"time"
)

// Control is how idemcheck kills, freezes and restarts instances of a
// service it did not start (Docker, Kubernetes, systemd): one command per
// action, an argv list whose ${INSTANCE} is the instance's name and
// ${INDEX} its position. A command counts only when it exits 0 and its
// effect is then seen from outside (the instance stops answering, stays
// frozen, answers again).
type Control struct {
	// Instances names the instances, one per base URL (default instance-0,
	// instance-1, ...).
	Instances []string `yaml:"instances"`
	Kill      []string `yaml:"kill"`
	Pause     []string `yaml:"pause"`
	Resume    []string `yaml:"resume"`
	Restart   []string `yaml:"restart"`
	// Timeout bounds each command and the wait for its effect (default 30s).
	Timeout string `yaml:"timeout"`

	timeout time.Duration
}

// TimeoutD is Timeout parsed.
func (c *Control) TimeoutD() time.Duration { return c.timeout }

// Argv is the command of an action for instance i, placeholders filled.
func (c *Control) Argv(cmd []string, i int) []string {
	out := make([]string, len(cmd))
	for k, a := range cmd {
		out[k] = strings.NewReplacer("${INSTANCE}", c.Instances[i], "${INDEX}", fmt.Sprint(i)).Replace(a)
	}
	return out
}

// CanPause reports whether the config says how to freeze an instance.
func (c *Control) CanPause() bool { return len(c.Pause) > 0 }

func (v *validator) control() {
	t := &v.c.Target
	c := t.Control
	if c == nil {
		return
	}
	if len(t.Command) > 0 {
		v.bad("target.control", "is for a service idemcheck does not start; with target.command idemcheck owns the processes already")
		return
	}
	if len(c.Instances) == 0 {
		for i := range t.BaseURLs {
			c.Instances = append(c.Instances, fmt.Sprintf("instance-%d", i))
		}
	} else if len(c.Instances) != len(t.BaseURLs) {
		v.bad("target.control.instances", "names %d instances for %d base URLs (one name per URL)", len(c.Instances), len(t.BaseURLs))
	}
	for i, n := range c.Instances {
		if strings.TrimSpace(n) == "" {
			v.bad(fmt.Sprintf("target.control.instances[%d]", i), "is empty")
		}
	}
	// Kill without restart would leave the service down for every later
	// check; restart without kill has nothing to bring back.
	for _, a := range []struct {
		name string
		cmd  []string
	}{{"kill", c.Kill}, {"restart", c.Restart}} {
		if len(a.cmd) == 0 || strings.TrimSpace(a.cmd[0]) == "" {
			v.bad("target.control."+a.name, "is required: an argv list such as [docker, %s, \"${INSTANCE}\"]", map[string]string{"kill": "kill", "restart": "start"}[a.name])
		}
	}
	if (len(c.Pause) == 0) != (len(c.Resume) == 0) {
		v.bad("target.control.pause", "pause and resume go together: a frozen instance must be thawed")
	}
	v.dur("target.control.timeout", c.Timeout, 30*time.Second, &c.timeout)
}
