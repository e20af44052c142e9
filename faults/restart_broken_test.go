package faults

import (
	"context"
	"errors"
	"os"
	"testing"
)

// lostProc is a tier whose binary went away: it dies, and never comes back.
type lostProc struct{ fakeProc }

func (p *lostProc) Restart(context.Context) error {
	p.restarts++
	return &os.PathError{Op: "fork/exec", Path: "/tmp/idemcheck", Err: os.ErrNotExist}
}

// TestFailedRestartBreaksTheSystem: a tier the harness killed and could not
// start again stays down by the harness's doing, so the undo's error says
// the system is broken (the chaos check then errors instead of blaming the
// service for what the dead tier did not do). Seen for real: a campaign
// whose idemcheck binary was moved mid-run reported failed-but-charged
// behind two API servers that never came back.
func TestFailedRestartBreaksTheSystem(t *testing.T) {
	p := &lostProc{}
	sys := &System{Tiers: []Tier{{Kind: "api", Name: "api-1", Proc: p}}}
	inj, err := Lookup("kill-restart-api").Inject(context.Background(), sys, Scope{N: 1})
	if err != nil {
		t.Fatal(err)
	}
	uerr := inj.Undo()
	if !errors.Is(uerr, ErrSystemBroken) || !errors.Is(uerr, os.ErrNotExist) || p.restarts != 1 {
		t.Fatalf("undo: %v (restarts %d); want ErrSystemBroken wrapping the restart's own error, after one restart", uerr, p.restarts)
	}
	if want := "kill-restart-api: the fault left the system broken: restart api-1: fork/exec /tmp/idemcheck: file does not exist"; uerr.Error() != want {
		t.Fatalf("undo says %q, want %q", uerr.Error(), want)
	}
}
