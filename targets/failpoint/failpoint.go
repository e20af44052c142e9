// Package failpoint is the mechanism of named points in tier code, the way
// etcd's gofail does it: pause (the process stops itself with SIGSTOP), crash
// (exit at once, no cleanup), sleep(d) and error. A tier declares its points
// next to the code that hits them and registers them in its init.
//
// The rest lives elsewhere: a tier's -failpoints flag (targets/tier) arms a
// list at start through ArmList, its admin endpoint (targets/tier) serves
// Snapshot, Arm and Disarm over HTTP, and the harness arms and reads points
// through that endpoint with faults.FailpointAt.
package failpoint

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Points lists every registered point, for validation and docs. Each tier
// declares its own points next to the code that hits them and registers them
// from its package's init.
var Points []string

// ErrInjected is what Hit returns for the error action; tier code treats it
// as the failure of the step the point guards.
var ErrInjected = errors.New("failpoint: injected error")

// CrashCode is the exit status of the crash action, so a harness can tell a
// failpoint crash from any other death.
const CrashCode = 86

// Action is a parsed action: Kind is pause, crash, sleep or error; Count > 0
// limits how many times it fires (then the point disarms), 0 means always.
type Action struct {
	Kind  string
	Sleep time.Duration
	Count int
}

func (a Action) String() string {
	s := a.Kind
	if a.Kind == "sleep" {
		s = "sleep(" + a.Sleep.String() + ")"
	}
	if a.Count > 0 {
		s = strconv.Itoa(a.Count) + "*" + s
	}
	return s
}

// Parse reads "pause", "crash", "error", "sleep(250ms)", optionally prefixed
// with "N*" to fire only N times.
func Parse(s string) (Action, error) {
	var a Action
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "*"); i >= 0 {
		n, err := strconv.Atoi(s[:i])
		if err != nil || n <= 0 {
			return a, fmt.Errorf("failpoint: action %q: count before '*' must be a positive integer", s)
		}
		a.Count, s = n, s[i+1:]
	}
	switch {
	case s == "pause" || s == "crash" || s == "error":
		a.Kind = s
	case strings.HasPrefix(s, "sleep(") && strings.HasSuffix(s, ")"):
		d, err := time.ParseDuration(s[len("sleep(") : len(s)-1])
		if err != nil || d < 0 {
			return a, fmt.Errorf("failpoint: action %q: bad sleep duration", s)
		}
		a.Kind, a.Sleep = "sleep", d
	default:
		return a, fmt.Errorf("failpoint: unknown action %q (want pause, crash, error, sleep(d), optionally N*)", s)
	}
	return a, nil
}

type point struct {
	armed  *Action
	passes int64 // times code went through the point
	fired  int64 // times an armed action ran
}

var (
	mu     sync.RWMutex
	points = map[string]*point{}
	// exit is replaced in tests so crash can be observed without dying.
	exit = os.Exit
	stop = func() error { return syscall.Kill(os.Getpid(), syscall.SIGSTOP) }
)

// Register adds a tier's own points to the catalogue; call it from the tier
// package's init, so every point is known before a tier's flags arm any.
func Register(names ...string) {
	mu.Lock()
	defer mu.Unlock()
	for _, n := range names {
		if !knownLocked(n) {
			Points = append(Points, n)
		}
	}
}

func known(name string) bool {
	mu.RLock()
	defer mu.RUnlock()
	return knownLocked(name)
}

func knownLocked(name string) bool {
	for _, p := range Points {
		if p == name {
			return true
		}
	}
	return false
}

// Arm arms name with action in this process.
func Arm(name, action string) error {
	if !known(name) {
		return fmt.Errorf("failpoint: unknown point %q (have %v)", name, Points)
	}
	a, err := Parse(action)
	if err != nil {
		return err
	}
	mu.Lock()
	defer mu.Unlock()
	p := get(name)
	p.armed = &a
	return nil
}

// Disarm removes any action from name.
func Disarm(name string) {
	mu.Lock()
	defer mu.Unlock()
	get(name).armed = nil
}

func get(name string) *point {
	p := points[name]
	if p == nil {
		p = &point{}
		points[name] = p
	}
	return p
}

// Status is one point's counters.
type Status struct {
	Name   string `json:"name"`
	Armed  string `json:"armed,omitempty"`
	Passes int64  `json:"passes"`
	Fired  int64  `json:"fired"`
}

// Snapshot returns every point's counters.
func Snapshot() []Status {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]Status, 0, len(Points))
	for _, n := range Points {
		s := Status{Name: n}
		if p := points[n]; p != nil {
			s.Passes, s.Fired = p.passes, p.fired
			if p.armed != nil {
				s.Armed = p.armed.String()
			}
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Hit passes the point: it runs the armed action, if any. It returns
// ErrInjected for the error action and nil otherwise (pause returns after the
// harness sends SIGCONT; crash never returns).
func Hit(name string) error {
	mu.Lock()
	p := get(name)
	p.passes++
	a := p.armed
	if a == nil {
		mu.Unlock()
		return nil
	}
	act := *a
	p.fired++
	if a.Count > 0 {
		a.Count--
		if a.Count == 0 {
			p.armed = nil
		}
	}
	mu.Unlock()
	switch act.Kind {
	case "pause":
		if err := stop(); err != nil {
			return fmt.Errorf("failpoint %s: pause: %w", name, err)
		}
	case "crash":
		// No deferred cleanup, no flush: the point of a crash.
		exit(CrashCode)
	case "sleep":
		time.Sleep(act.Sleep)
	case "error":
		return fmt.Errorf("%w at %s", ErrInjected, name)
	}
	return nil
}
