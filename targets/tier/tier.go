// Package tier runs each server tier of the reference stack as its own OS
// process, so a kill is a real kill and a pause a real SIGSTOP. Any binary that
// links the tiers (the idemcheck CLI, a suite's test binary) can become one of
// them: it re-executes itself with the tier's name in the environment.
package tier

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"sort"
	"sync"
	"syscall"
)

// EnvTier names the tier a re-executed binary must run instead of its own main.
const EnvTier = "IDEMCHECK_TIER"

// Main is a tier's entry point. It returns when ctx is cancelled (SIGTERM or
// SIGINT) or on a fatal error.
type Main func(ctx context.Context, args []string) error

var (
	mu       sync.Mutex
	registry = map[string]Main{}
)

// Register makes a tier runnable by name; tier packages call it from init.
func Register(name string, m Main) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[name]; dup {
		panic("tier: registered twice: " + name)
	}
	registry[name] = m
}

// Names lists the registered tiers.
func Names() []string {
	mu.Lock()
	defer mu.Unlock()
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Dispatch runs the tier named by $IDEMCHECK_TIER and exits; it returns at once
// when the variable is unset. Call it first thing in main and in TestMain.
func Dispatch() {
	name := os.Getenv(EnvTier)
	if name == "" {
		return
	}
	mu.Lock()
	m, ok := registry[name]
	mu.Unlock()
	if !ok {
		fmt.Fprintf(os.Stderr, "tier: %s=%q is not a registered tier (have %v)\n", EnvTier, name, Names())
		os.Exit(2)
	}
	tuneGC()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	endProfile := startProfile(name, os.Args[1:])
	err := m(ctx, os.Args[1:])
	endProfile()
	if err != nil {
		fmt.Fprintf(os.Stderr, "tier %s: %v\n", name, err)
		if errors.As(err, new(BadInput)) {
			os.Exit(2)
		}
		os.Exit(1)
	}
	os.Exit(0)
}

// gcPercent and gcLimit are a tier's collector settings unless $GOGC or
// $GOMEMLIMIT say otherwise. A tier keeps a few MB live and allocates per
// request, so at Go's default of 100 it collected every few MB: 13% of the
// worker's CPU in the delivery bench, which 400 cut by about a tenth of the
// path's CPU per event. The limit makes the collector work harder as a heap
// nears it, so a tier that holds much (the push provider's history) stays
// bounded.
const (
	gcPercent = 400
	gcLimit   = 1 << 30
)

func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(gcLimit)
	}
}

// Command builds the command that runs tier name as a child of this binary.
// The child gets only args (never the parent's test flags).
func Command(name string, args ...string) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("tier: locate own executable: %w", err)
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), EnvTier+"="+name)
	// A tier gets its own process group so a signal to the harness (Ctrl-C)
	// does not reach it before the harness has recorded what it needs; the
	// harness stops its tiers itself.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd, nil
}
