package faults

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestCrashAtCountsOnlyTheCrashsExit: a tier that dies while the point is
// armed fired it only if it exited with the crash action's own status; one
// killed (or dying of anything else) in the meantime is restarted, does not
// count, and Undo says so. Counting any exit let a spec pass whose point was
// never reached.
func TestCrashAtCountsOnlyTheCrashsExit(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		name  string
		code  int
		fired int64
	}{
		{"the crash's own status", CrashExitCode, 1},
		{"killed by a signal", -1, 0},
		{"a panic's status", 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &fakeProc{}
			sys := &System{Tiers: []Tier{{Kind: "api", Name: "api-1", Admin: srv.URL, Proc: p}}}
			inj, err := Lookup("crash-api-after-psp-call").Inject(context.Background(), sys, Scope{N: 1})
			if err != nil {
				t.Fatal(err)
			}
			p.dead, p.code = true, tc.code
			if got := inj.Fired(); got != tc.fired {
				t.Fatalf("fired %d while dead with status %d, want %d", got, tc.code, tc.fired)
			}
			err = inj.Undo()
			if p.restarts != 1 {
				t.Errorf("restarts %d, want 1: a dead tier comes back whatever killed it", p.restarts)
			}
			if got := inj.Fired(); got != tc.fired {
				t.Errorf("fired %d after Undo, want %d", got, tc.fired)
			}
			if tc.fired == 0 && (err == nil || !strings.Contains(err.Error(), "not at the point's crash")) {
				t.Errorf("Undo's error %v does not say the tier died another way", err)
			}
			if tc.fired == 1 && err != nil {
				t.Errorf("Undo: %v", err)
			}
		})
	}
}

// TestProcessExitCode: a process's own exit status is read back, and a
// running one has none.
func TestProcessExitCode(t *testing.T) {
	p, err := StartProcess("exit-86", exec.Command("sh", "-c", "sleep 0.2; exit 86"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, exited := p.ExitCode(); exited {
		t.Fatal("exited at once")
	}
	_ = p.Wait(10 * time.Second)
	if code, exited := p.ExitCode(); !exited || code != CrashExitCode {
		t.Fatalf("ExitCode %d, %v; want %d, true", code, exited, CrashExitCode)
	}
}
