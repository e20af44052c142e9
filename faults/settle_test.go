package faults

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// loggedProc is a tier process whose deaths, restarts and settles are
// logged in order; the admin server may kill it from its own goroutine.
type loggedProc struct {
	mu   sync.Mutex
	dead bool
	code int
	log  []string
}

func (p *loggedProc) note(s string) { p.mu.Lock(); p.log = append(p.log, s); p.mu.Unlock() }
func (p *loggedProc) die(code int) {
	p.mu.Lock()
	p.dead, p.code, p.log = true, code, append(p.log, "die")
	p.mu.Unlock()
}
func (p *loggedProc) Kill() error { p.die(-1); return nil }
func (p *loggedProc) Restart(context.Context) error {
	p.mu.Lock()
	p.dead, p.log = false, append(p.log, "restart")
	p.mu.Unlock()
	return nil
}
func (p *loggedProc) Exited() bool                 { p.mu.Lock(); defer p.mu.Unlock(); return p.dead }
func (p *loggedProc) ExitCode() (int, bool)        { p.mu.Lock(); defer p.mu.Unlock(); return p.code, p.dead }
func (p *loggedProc) Pause() error                 { return nil }
func (p *loggedProc) Resume() error                { return nil }
func (p *loggedProc) events() []string             { p.mu.Lock(); defer p.mu.Unlock(); return slices.Clone(p.log) }
func (p *loggedProc) settle(context.Context) error { p.note("settle"); return nil }

// TestE1CrashSettlesAfterItsSecondCrash: the E1 fault (crash between push
// and SENT, then before the offset commit) waits for the worker to settle
// once, after the second crash's restart: before it, the settle would finish
// the redelivery the second point is armed to meet; without it, the next
// fault met the redelivery of a batch this one had struck (seed 36: three
// alerts for one payment from a correct worker).
func TestE1CrashSettlesAfterItsSecondCrash(t *testing.T) {
	p := &loggedProc{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/before-offset-commit") {
			p.die(CrashExitCode) // the redelivery meets the second point
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	sys := &System{Tiers: []Tier{{Kind: "worker", Name: "worker", Admin: srv.URL, Proc: p, Settle: p.settle}}}
	inj, err := Lookup("crash-worker-after-push-before-sent-then-before-offset-commit").Inject(context.Background(), sys, Scope{N: 3})
	if err != nil {
		t.Fatal(err)
	}
	p.die(CrashExitCode) // the first batch meets the first point
	if err := inj.Undo(); err != nil {
		t.Fatalf("undo: %v", err)
	}
	want := []string{"die", "restart", "die", "restart", "settle"}
	if got := p.events(); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if inj.Fired() != 1 {
		t.Fatalf("fired %d, want 1", inj.Fired())
	}
}

// TestCrashAtThatNeverFiredDoesNotSettle: no death, no restart, nothing to
// wait for.
func TestCrashAtThatNeverFiredDoesNotSettle(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(srv.Close)
	p := &loggedProc{}
	sys := &System{Tiers: []Tier{{Kind: "worker", Name: "worker", Admin: srv.URL, Proc: p, Settle: p.settle}}}
	f := CrashAt{Kind: "worker", Point: "before-offset-commit"} // no Wait: Undo at once
	inj, err := f.Inject(context.Background(), sys, Scope{N: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := inj.Undo(); err != nil {
		t.Fatalf("undo: %v", err)
	}
	if got := p.events(); len(got) != 0 {
		t.Fatalf("events %v, want none", got)
	}
}

// TestKillRestartSettlesAfterRestart: the killed worker is restarted, then
// settled, and a settle that fails is Undo's error naming the tier.
func TestKillRestartSettlesAfterRestart(t *testing.T) {
	p := &loggedProc{}
	sys := &System{Tiers: []Tier{{Kind: "worker", Name: "worker", Proc: p, Settle: p.settle}}}
	inj, err := Lookup("kill-restart-worker").Inject(context.Background(), sys, Scope{N: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := inj.Undo(); err != nil {
		t.Fatalf("undo: %v", err)
	}
	if got, want := p.events(), []string{"die", "restart", "settle"}; !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}

	stuck := errors.New("group behind")
	sys.Tiers[0].Settle = func(context.Context) error { return stuck }
	inj, err = Lookup("kill-restart-worker").Inject(context.Background(), sys, Scope{N: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := inj.Undo(); !errors.Is(err, stuck) || !strings.Contains(err.Error(), "worker restarted but did not settle") {
		t.Fatalf("undo: %v, want the settle's error naming the tier", err)
	}
}
