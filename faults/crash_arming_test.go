package faults

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// dyingAdmin is a tier's failpoint admin whose process dies of the point
// while the arming PUT is in flight (another request passed it first): the
// PUT's connection is cut, as a crashed process cuts it.
func dyingAdmin(t *testing.T, p *fakeProc, mu *sync.Mutex, calls *[]string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		*calls = append(*calls, r.Method)
		dead := p.dead
		if r.Method == http.MethodPut && !dead {
			p.dead, p.code = true, CrashExitCode
			dead = true
		}
		mu.Unlock()
		if dead {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func okAdmin(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestCrashAtArmFailureRestartsTheDead: seen in a 40-seed campaign on the
// reference with no switch. Arming crash-api-before-complete on the second
// API server cut the PUT (the server died at the point on another intent's
// request); the injection returned its error with nothing to undo, the
// server was never restarted, and the rest of the run blamed the service
// for 502s (failed-but-charged, lost-effect). The tiers armed so far are now
// settled: the dead one is restarted, and the error is the arm's alone.
func TestCrashAtArmFailureRestartsTheDead(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	a, b := &fakeProc{}, &fakeProc{}
	sys := &System{Tiers: []Tier{{Kind: "api", Name: "api-1", Admin: okAdmin(t), Proc: a}, {Kind: "api", Name: "api-2", Admin: dyingAdmin(t, b, &mu, &calls), Proc: b}}}
	inj, err := Lookup("crash-api-before-complete").Inject(context.Background(), sys, Scope{N: 1})
	if inj != nil || err == nil {
		t.Fatalf("inject: %v, %v; want no injection and the arm's error", inj, err)
	}
	if errors.Is(err, ErrSystemBroken) {
		t.Fatalf("the dead tier was restarted, yet the error says broken: %v", err)
	}
	if b.restarts != 1 || b.dead || a.restarts != 0 {
		t.Fatalf("restarts api-1 %d api-2 %d, api-2 dead %v; want api-2 restarted once", a.restarts, b.restarts, b.dead)
	}
}

// TestCrashAtArmFailureThatCannotRestartIsBroken: the same, with a restart
// that fails: the system is left broken by the harness, and says so.
func TestCrashAtArmFailureThatCannotRestartIsBroken(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	a, b := &fakeProc{}, &lostProc{}
	sys := &System{Tiers: []Tier{{Kind: "api", Name: "api-1", Admin: okAdmin(t), Proc: a}, {Kind: "api", Name: "api-2", Admin: dyingAdmin(t, &b.fakeProc, &mu, &calls), Proc: b}}}
	_, err := Lookup("crash-api-before-complete").Inject(context.Background(), sys, Scope{N: 1})
	if !errors.Is(err, ErrSystemBroken) || b.restarts != 1 {
		t.Fatalf("inject: %v (restarts %d); want ErrSystemBroken after one failed restart", err, b.restarts)
	}
}
