package faults

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// The process family: crashes and freezes of tier processes. A kill is a real
// crash (SIGKILL, no cleanup); a restart of the stream job restores it from
// its last checkpoint, of the worker replays its uncommitted offsets.
var processFaults = []Fault{
	KillRestart{Kind: "target"},
	KillRestart{Kind: "api"},
	KillRestart{Kind: "resolver"},
	KillRestart{Kind: "webhook"},
	KillRestart{Kind: "relay"},
	KillRestart{Kind: "worker"},
	KillRestart{Kind: "connector"},
	KillRestart{Kind: "streamjob"},
	PauseResume{Kind: "api", For: 300 * time.Millisecond},
}

// KillRestart kills one tier of Kind (the intent picks which) and restarts it
// on Undo.
type KillRestart struct{ Kind string }

func (f KillRestart) Name() string   { return "kill-restart-" + f.Kind }
func (f KillRestart) Family() Family { return FamilyProcess }
func (f KillRestart) Applies(sys *System) (bool, string) {
	if len(sys.TiersOf(f.Kind)) == 0 {
		return false, fmt.Sprintf("no %s process the harness started", f.Kind)
	}
	return true, ""
}

func (f KillRestart) Inject(ctx context.Context, sys *System, s Scope) (Injection, error) {
	ts := sys.TiersOf(f.Kind)
	if len(ts) == 0 {
		return nil, fmt.Errorf("%s: no %s process", f.Name(), f.Kind)
	}
	t := ts[pick(s, len(ts))]
	if err := t.Proc.Kill(); err != nil {
		return nil, fmt.Errorf("%s: kill %s: %w", f.Name(), t.Name, err)
	}
	return &injection{fired: func() int64 { return 1 }, undo: func() error {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := t.Proc.Restart(rctx); err != nil {
			return fmt.Errorf("%s: %w", f.Name(), restartFailed(t.Name, err))
		}
		if err := t.settled(rctx); err != nil {
			return fmt.Errorf("%s: %w", f.Name(), err)
		}
		return nil
	}}, nil
}

// PauseResume freezes one tier of Kind with SIGSTOP for For (or until Undo,
// whichever is first), then thaws it.
type PauseResume struct {
	Kind string
	For  time.Duration
}

func (f PauseResume) Name() string   { return "pause-" + f.Kind }
func (f PauseResume) Family() Family { return FamilyProcess }
func (f PauseResume) pausers(sys *System) []Tier {
	var out []Tier
	for _, t := range sys.TiersOf(f.Kind) {
		if CanPause(t.Proc) {
			out = append(out, t)
		}
	}
	return out
}

func (f PauseResume) Applies(sys *System) (bool, string) {
	if len(f.pausers(sys)) == 0 {
		return false, fmt.Sprintf("no %s process the harness can pause", f.Kind)
	}
	return true, ""
}

func (f PauseResume) Inject(_ context.Context, sys *System, s Scope) (Injection, error) {
	ts := f.pausers(sys)
	if len(ts) == 0 {
		return nil, fmt.Errorf("%s: no %s process", f.Name(), f.Kind)
	}
	t := ts[pick(s, len(ts))]
	p := t.Proc
	if err := p.Pause(); err != nil {
		return nil, fmt.Errorf("%s: pause %s: %w", f.Name(), t.Name, err)
	}
	// Once: the timer and Undo may race, and Undo must return after the thaw.
	var once sync.Once
	var err error
	thaw := func() { once.Do(func() { err = p.Resume() }) }
	timer := time.AfterFunc(f.For, thaw)
	return &injection{fired: func() int64 { return 1 }, undo: func() error {
		timer.Stop()
		thaw()
		return err
	}}, nil
}
