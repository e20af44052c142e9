package report

import (
	"testing"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// TestRequireAllSafetySparesTheBrokersNA: with --require-all-safety a
// safety check n/a for the config fails the run; one n/a because the
// broker cannot run it (Q-visibility on Kafka) does not.
func TestRequireAllSafetySparesTheBrokersNA(t *testing.T) {
	r := &Report{RequireAllSafety: true}
	config := scenario.Result{ID: "W-dup", Level: scenario.Safety, Verdict: scenario.NA, Why: "needs a webhook section"}
	broker := scenario.Result{ID: "Q-visibility", Level: scenario.Safety, Verdict: scenario.NA, Why: "needs a visibility timeout", BrokerNA: true}
	if !r.Fails(config) || r.Fails(broker) {
		t.Fatalf("fails: config n/a %v, broker n/a %v; want true, false", r.Fails(config), r.Fails(broker))
	}
	broker.Required = true
	if !r.Fails(broker) {
		t.Fatal("a required check the broker cannot run must still fail the run")
	}
}
