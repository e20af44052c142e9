package faults

import (
	"context"
	"strings"
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

		"crash-api-after-psp-call":                FamilyFailpoint,
		"crash-api-before-complete":               FamilyFailpoint,
		"crash-webhook-before-webhook-commit":     FamilyFailpoint,
		"crash-resolver-sweep":                    FamilyFailpoint,
		"crash-relay-after-publish-before-delete": FamilyFailpoint,
		"crash-worker-after-commit-before-push":   FamilyFailpoint,
		"crash-worker-before-offset-commit":       FamilyFailpoint,
		"crash-connector-before-ack":              FamilyFailpoint,
		"crash-streamjob-after-sink-write":        FamilyFailpoint,
		"crash-streamjob-after-checkpoint-commit": FamilyFailpoint,
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
	for fam, list := range map[Family][]Fault{FamilyNetwork: networkFaults, FamilyProcess: processFaults, FamilyPSP: pspFaults, FamilyFailpoint: failpointFaults} {
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
}

func (p *fakeProc) Kill() error                   { p.kills++; p.dead = true; return nil }
func (p *fakeProc) Restart(context.Context) error { p.restarts++; p.dead = false; return nil }
func (p *fakeProc) Exited() bool                  { return p.dead }

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
