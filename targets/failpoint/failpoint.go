// Package failpoint holds named points in tier code that the harness arms over
// a loopback admin endpoint of each process, the way etcd's gofail does: pause
// (the process stops itself with SIGSTOP), crash (exit at once, no cleanup),
// sleep(d) and error. Unarmed points cost one map lookup under a read lock.
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

// The points the reference tiers carry.
const (
	// BeforeClaim sits between a claim's read and its write; the reference's
	// claim is one atomic script, so only the mutant check-then-insert has a gap.
	BeforeClaim         = "before-claim"
	AfterClaim          = "after-claim"
	AfterPendingInsert  = "after-pending-insert"
	BeforePSPCall       = "before-psp-call"
	AfterPSPCall        = "after-psp-call"
	BeforeComplete      = "before-complete"
	BeforeResolveCommit = "before-resolve-commit"
	BeforeRefundCall    = "before-refund-call"
	BeforeWebhookCommit = "before-webhook-commit"
	ResolverSweep       = "resolver-sweep"
)

// Points lists every point above, for validation and docs.
var Points = []string{BeforeClaim, AfterClaim, AfterPendingInsert, BeforePSPCall, AfterPSPCall, BeforeComplete,
	BeforeResolveCommit, BeforeRefundCall, BeforeWebhookCommit, ResolverSweep}

// ErrInjected is what Hit returns for the error action; tier code treats it
// as the failure of the step the point guards.
var ErrInjected = errors.New("failpoint: injected error")

// EnvArm arms points at process start ("name=action;name=action"), so a tier
// restarted by the harness can carry a point from its first instruction.
const EnvArm = "IDEMCHECK_FAILPOINTS"

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

func init() {
	if v := os.Getenv(EnvArm); v != "" {
		for _, kv := range strings.Split(v, ";") {
			if kv == "" {
				continue
			}
			name, act, ok := strings.Cut(kv, "=")
			if _, err := Parse(act); !ok || err != nil {
				fmt.Fprintf(os.Stderr, "failpoint: %s entry %q is not name=action (%v)\n", EnvArm, kv, err)
				os.Exit(2)
			}
			if !known(name) {
				// A tier package registers its points in its own init, after
				// this one: arm the point when it is registered.
				pending[name] = act
				continue
			}
			if err := Arm(name, act); err != nil {
				fmt.Fprintf(os.Stderr, "failpoint: %s: %v\n", EnvArm, err)
				os.Exit(2)
			}
		}
	}
}

// pending holds EnvArm entries for points not registered yet.
var pending = map[string]string{}

// Register adds a tier's own points to the catalogue (call it from the tier
// package's init) and arms any of them EnvArm named.
func Register(names ...string) {
	mu.Lock()
	for _, n := range names {
		if !knownLocked(n) {
			Points = append(Points, n)
		}
	}
	mu.Unlock()
	for _, n := range names {
		if act, ok := pending[n]; ok {
			delete(pending, n)
			if err := Arm(n, act); err != nil {
				fmt.Fprintf(os.Stderr, "failpoint: %s: %v\n", EnvArm, err)
				os.Exit(2)
			}
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
