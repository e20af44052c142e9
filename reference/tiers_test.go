package reference

import (
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/targets/mutant"
)

// TestRefusesSwitchOfATierItDoesNotStart: a mutant of a tier `run
// --reference` never starts would pass while proving nothing, so it is a
// usage error naming the switch and the tier; every switch of a started tier
// is accepted.
func TestRefusesSwitchOfATierItDoesNotStart(t *testing.T) {
	for _, e := range mutant.Catalogue {
		err := runsEveryTierOf(mutant.Set{e.Switch: true}, false, false)
		ok := startsAll(stackTiers, e.Tier) && !regionOnly(&e)
		switch {
		case ok && err != nil:
			t.Errorf("%s (tier %s): refused: %v", e.Switch, e.Tier, err)
		case !ok && (err == nil || !strings.Contains(err.Error(), string(e.Switch)) || !strings.Contains(err.Error(), e.Tier)):
			t.Errorf("%s (tier %s): want an error naming the switch and the tier, got %v", e.Switch, e.Tier, err)
		}
	}
	if err := runsEveryTierOf(mutant.Set{mutant.StreamNoFullFlush: true}, false, false); err == nil {
		t.Fatal("stream-no-full-flush accepted by a stack without a stream job")
	}
}

// TestRegionSwitchesNeedTheStandby: the Region switches run only where R2
// takes over (a chaos run); the router's never, since R2 never serves beside
// R1.
func TestRegionSwitchesNeedTheStandby(t *testing.T) {
	for _, s := range []mutant.Switch{mutant.RegionAttemptKey, mutant.RandomEventID} {
		if err := runsEveryTierOf(mutant.Set{s: true}, true, false); err == nil || !strings.Contains(err.Error(), "second Region") {
			t.Errorf("%s without the standby: %v", s, err)
		}
		if err := runsEveryTierOf(mutant.Set{s: true}, true, true); err != nil {
			t.Errorf("%s with the standby: refused: %v", s, err)
		}
	}
	if err := runsEveryTierOf(mutant.Set{mutant.NearestRegion: true}, true, true); err == nil || !strings.Contains(err.Error(), "two Regions serve at once") {
		t.Errorf("route-nearest-region: %v", err)
	}
}

// TestFullStackAcceptsItsTiersMutants: with the whole stack started, a stream
// job switch and the worker's are accepted; the phone's is still refused,
// and a worker switch without a stack that starts the worker is refused.
func TestFullStackAcceptsItsTiersMutants(t *testing.T) {
	if err := runsEveryTierOf(mutant.Set{mutant.StreamNoFullFlush: true}, true, false); err != nil {
		t.Fatalf("stream-no-full-flush refused by the full stack: %v", err)
	}
	if err := runsEveryTierOf(mutant.Set{mutant.ClientTrustsError: true}, true, false); err == nil {
		t.Fatal("client-trusts-error (phone) accepted: the run is its own phone")
	}
	if err := runsEveryTierOf(mutant.Set{mutant.WorkerNoInbox: true, mutant.NoDedupKey: true}, true, false); err != nil {
		t.Fatalf("worker switches refused by the full stack: %v", err)
	}
	if err := runsEveryTierOf(mutant.Set{mutant.WorkerNoInbox: true}, false, false); err == nil {
		t.Fatal("worker-no-inbox accepted by a stack that starts no worker")
	}
	rest := mutant.Without("worker", mutant.Set{mutant.WorkerNoInbox: true, mutant.KeyNotScoped: true})
	if rest.String() != string(mutant.KeyNotScoped) {
		t.Fatalf("Without: %v", rest)
	}
}

// TestSeveralMerchants: a full run's body names the caller's merchant, and a
// third caller pays a third merchant.
func TestSeveralMerchants(t *testing.T) {
	c, err := Config([]string{"http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	severalMerchants(c)
	if len(c.Callers) != 3 || !strings.Contains(c.Create.Body, `"merchant": "shop-{{caller}}"`) {
		t.Fatalf("callers %v body %s", c.Callers, c.Create.Body)
	}
}
