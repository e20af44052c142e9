package faults

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestCatalogue lists every fault with its family, and keeps names unique and
// each fault in the family of the file it is declared in.
func TestCatalogue(t *testing.T) {
	want := map[string]Family{
		"client-reply-lost":     FamilyNetwork,
		"dependency-reply-lost": FamilyNetwork,
		"replication-lag":       FamilyNetwork,

		"kill-restart-target":    FamilyProcess,
		"kill-restart-api":       FamilyProcess,
		"kill-restart-resolver":  FamilyProcess,
		"kill-restart-webhook":   FamilyProcess,
		"kill-restart-relay":     FamilyProcess,
		"kill-restart-worker":    FamilyProcess,
		"kill-restart-connector": FamilyProcess,
		"kill-restart-streamjob": FamilyProcess,
		"pause-api":              FamilyProcess,

		"psp-reply-lost":           FamilyPSP,
		"psp-reply-held":           FamilyPSP,
		"psp-slow":                 FamilyPSP,
		"psp-slow-after-charge":    FamilyPSP,
		"psp-500-before-charge":    FamilyPSP,
		"psp-500-after-charge":     FamilyPSP,
		"psp-429":                  FamilyPSP,
		"psp-gate-before-charge":   FamilyPSP,
		"psp-search-lag":           FamilyPSP,
		"psp-webhook-duplicates":   FamilyPSP,
		"psp-webhook-out-of-order": FamilyPSP,

		"crash-api-after-psp-call":                                      FamilyFailpoint,
		"crash-api-before-complete":                                     FamilyFailpoint,
		"crash-webhook-before-webhook-commit":                           FamilyFailpoint,
		"crash-resolver-sweep":                                          FamilyFailpoint,
		"crash-relay-after-publish-before-delete":                       FamilyFailpoint,
		"crash-worker-after-commit-before-push":                         FamilyFailpoint,
		"crash-worker-before-offset-commit":                             FamilyFailpoint,
		"crash-worker-after-push-before-sent-then-before-offset-commit": FamilyFailpoint,
		"crash-connector-before-ack":                                    FamilyFailpoint,
		"crash-streamjob-after-sink-write":                              FamilyFailpoint,
		"crash-streamjob-after-checkpoint-commit":                       FamilyFailpoint,

		"region-failover": FamilyRegion,

		"window-owner-killed-in-charge":                    FamilyWindow,
		"window-owner-frozen-in-charge":                    FamilyWindow,
		"window-psp-500-saved-no-webhook":                  FamilyWindow,
		"window-psp-reply-lost-every-execution-no-webhook": FamilyWindow,
		"window-psp-held-past-timeout-no-webhook":          FamilyWindow,
		"window-lb-held-past-deadline":                     FamilyWindow,
	}
	got := map[string]Family{}
	for _, f := range All() {
		if _, dup := got[f.Name()]; dup {
			t.Errorf("two faults named %q", f.Name())
		}
		got[f.Name()] = f.Family()
		t.Logf("%-10s %s", f.Family(), f.Name())
		if Lookup(f.Name()) == nil {
			t.Errorf("Lookup(%q) = nil", f.Name())
		}
	}
	for name, fam := range want {
		if got[name] != fam {
			t.Errorf("%s: family %q, want %q", name, got[name], fam)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("fault %q (%s) is in the catalogue but not in this test's list", name, got[name])
		}
	}
	for fam, list := range map[Family][]Fault{FamilyNetwork: networkFaults, FamilyProcess: processFaults, FamilyPSP: pspFaults, FamilyFailpoint: failpointFaults,
		FamilyRegion: regionFaults, FamilyWindow: windowFaults} {
		for _, f := range list {
			if f.Family() != fam {
				t.Errorf("%s is listed with the %s faults but says it is %s", f.Name(), fam, f.Family())
			}
		}
	}
}

// TestNothingAppliesToAnEmptySystem: every fault says why it does not apply
// when the harness controls nothing, and refuses to inject.
func TestNothingAppliesToAnEmptySystem(t *testing.T) {
	sys := &System{}
	ok, not := Applicable(sys)
	if len(ok) != 0 {
		t.Fatalf("applicable with nothing controlled: %v", Names(ok))
	}
	for _, f := range All() {
		if strings.TrimSpace(not[f.Name()]) == "" {
			t.Errorf("%s: no reason given", f.Name())
		}
	}
}

type fakeProc struct {
	kills, restarts int
	dead            bool
	code            int // the exit status once dead
}

func (p *fakeProc) Kill() error                   { p.kills++; p.dead, p.code = true, -1; return nil }
func (p *fakeProc) Restart(context.Context) error { p.restarts++; p.dead = false; return nil }
func (p *fakeProc) Exited() bool                  { return p.dead }
func (p *fakeProc) Pause() error                  { return nil }
func (p *fakeProc) Resume() error                 { return nil }
func (p *fakeProc) ExitCode() (int, bool)         { return p.code, p.dead }

// TestKillRestartPicksByIntent: the intent's number picks the tier, the
// injection fired once, and Undo brings the same tier back.
func TestKillRestartPicksByIntent(t *testing.T) {
	a, b := &fakeProc{}, &fakeProc{}
	sys := &System{Tiers: []Tier{{Kind: "api", Name: "api-1", Proc: a}, {Kind: "api", Name: "api-2", Proc: b}, {Kind: "relay", Name: "relay", Proc: &fakeProc{}}}}
	f := Lookup("kill-restart-api")
	if ok, why := f.Applies(sys); !ok {
		t.Fatal(why)
	}
	inj, err := f.Inject(context.Background(), sys, Scope{N: 3})
	if err != nil {
		t.Fatal(err)
	}
	if inj.Fired() != 1 || b.kills != 1 || a.kills != 0 {
		t.Fatalf("fired %d, kills api-1 %d api-2 %d; want intent 3 to kill api-2 once", inj.Fired(), a.kills, b.kills)
	}
	if err := inj.Undo(); err != nil || b.restarts != 1 || b.dead {
		t.Fatalf("undo: %v, restarts %d, dead %v", err, b.restarts, b.dead)
	}
	if ok, _ := Lookup("kill-restart-worker").Applies(sys); ok {
		t.Fatal("kill-restart-worker applies to a system with no worker")
	}
}

// TestCrashAtArmsEveryTierAndRestartsTheDead: the point is armed on both API
// servers; the one that died is restarted on Undo and counts as the firing,
// the other is disarmed.
func TestCrashAtArmsEveryTierAndRestartsTheDead(t *testing.T) {
	var mu sync.Mutex
	calls := map[string][]string{}
	admin := func(name string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			calls[name] = append(calls[name], r.Method+" "+r.URL.Path+" "+string(b))
			mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	a, b := &fakeProc{}, &fakeProc{}
	sys := &System{Tiers: []Tier{{Kind: "api", Name: "api-1", Admin: admin("api-1"), Proc: a}, {Kind: "api", Name: "api-2", Admin: admin("api-2"), Proc: b}}}
	inj, err := Lookup("crash-api-after-psp-call").Inject(context.Background(), sys, Scope{N: 1})
	if err != nil {
		t.Fatal(err)
	}
	if inj.Fired() != 0 {
		t.Fatalf("fired %d before any crash", inj.Fired())
	}
	b.dead, b.code = true, CrashExitCode // api-2 passed the point
	if inj.Fired() != 1 {
		t.Fatalf("fired %d after api-2 died, want 1", inj.Fired())
	}
	if err := inj.Undo(); err != nil {
		t.Fatal(err)
	}
	if b.restarts != 1 || a.restarts != 0 || inj.Fired() != 1 {
		t.Fatalf("restarts api-1 %d api-2 %d, fired %d", a.restarts, b.restarts, inj.Fired())
	}
	want := []string{"PUT /failpoints/after-psp-call 1*crash", "DELETE /failpoints/after-psp-call "}
	for _, n := range []string{"api-1", "api-2"} {
		if strings.Join(calls[n], "|") != strings.Join(want, "|") {
			t.Errorf("%s admin calls %q, want %q", n, calls[n], want)
		}
	}
}
