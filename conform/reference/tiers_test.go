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
		err := runsEveryTierOf(mutant.Set{e.Switch: true})
		switch {
		case stackTiers[e.Tier] && err != nil:
			t.Errorf("%s (tier %s): refused: %v", e.Switch, e.Tier, err)
		case !stackTiers[e.Tier] && (err == nil || !strings.Contains(err.Error(), string(e.Switch)) || !strings.Contains(err.Error(), e.Tier)):
			t.Errorf("%s (tier %s): want an error naming the switch and the tier, got %v", e.Switch, e.Tier, err)
		}
	}
	if err := runsEveryTierOf(mutant.Set{mutant.StreamNoFullFlush: true}); err == nil {
		t.Fatal("stream-no-full-flush accepted by a stack without a stream job")
	}
}
