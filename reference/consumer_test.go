package reference

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/targets/mutant"
)

var queueChecks = []string{"Q-dup", "Q-kill", "Q-rebalance", "Q-poison"}

// TestWorkerNoInboxCaughtByTheConsumerChecks: the reference's workers with
// their inbox off credit every copy: the producer retry (Q-dup) and the
// redelivery after the crash at the worker's point between its credit and
// its offset commit (Q-kill) are each exactly a double credit. Q-rebalance
// sees one only when a rebalance lands inside a batch the worker had
// credited and not committed, which a worker committing within a
// millisecond rarely gives: pass or exactly double-credit. Q-poison sends
// each payment once and passes.
func TestWorkerNoInboxCaughtByTheConsumerChecks(t *testing.T) {
	code, out, results := run(t, "worker-no-inbox", queueChecks)
	if code != conform.ExitViolation {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	seen := 0
	for _, r := range results {
		if !slices.Contains(queueChecks, r.ID) {
			continue
		}
		seen++
		var kinds []string
		for _, f := range r.Findings {
			if !slices.Contains(kinds, f.Kind) {
				kinds = append(kinds, f.Kind)
			}
		}
		switch {
		case r.ID == "Q-dup" || r.ID == "Q-kill":
			if !slices.Equal(kinds, []string{"double-credit"}) {
				t.Errorf("%s: kinds %v, want exactly [double-credit]: %s", r.ID, kinds, r.Why)
			}
		case r.ID == "Q-rebalance" && len(kinds) > 0:
			if !slices.Equal(kinds, []string{"double-credit"}) {
				t.Errorf("%s: kinds %v, want none or exactly [double-credit]: %s", r.ID, kinds, r.Why)
			}
		case r.Verdict != scenario.Pass:
			t.Errorf("%s: %s %s", r.ID, r.Verdict, r.Why)
		}
	}
	if seen != len(queueChecks) {
		t.Fatalf("ran %d of the %d consumer checks\n%s", seen, len(queueChecks), out)
	}
}

// A worker switch the consumer checks cannot see is refused, not passed.
func TestNotificationMutantRefusedWithoutChaos(t *testing.T) {
	code, _, _ := run(t, "no-notif-record", queueChecks)
	if code != conform.ExitUsage {
		t.Fatalf("exit %d, want %d", code, conform.ExitUsage)
	}
	if err := queueMutant(mutant.Set{mutant.NoNotifRecord: true}, true); err == nil || !strings.Contains(err.Error(), "--chaos") {
		t.Fatalf("queueMutant(no-notif-record) = %v, want a refusal naming --chaos", err)
	}
	// A switch chaos cannot reach either names the spec that catches it.
	if err := queueMutant(mutant.Set{mutant.NoDedupKey: true}, true); err == nil || !strings.Contains(err.Error(), "suites/delivery E3") {
		t.Fatalf("queueMutant(no-dedup-key) = %v, want a refusal naming E3's spec", err)
	}
	if err := queueMutant(mutant.Set{mutant.ReadUncommitted: true}, true); err == nil || !strings.Contains(err.Error(), "worker-no-inbox") {
		t.Fatalf("queueMutant(read-uncommitted) = %v, want a refusal naming its partner switch", err)
	}
	if err := queueMutant(mutant.Set{mutant.WorkerNoInbox: true}, false); err == nil || !strings.Contains(err.Error(), "Q-*") {
		t.Fatalf("queueMutant(worker-no-inbox) without the consumer checks = %v, want a refusal", err)
	}
	if err := queueMutant(mutant.Set{mutant.WorkerNoInbox: true}, true); err != nil {
		t.Fatalf("queueMutant(worker-no-inbox) = %v, want accepted", err)
	}
}

// The consumer block is in the reference's config only with the webhook
// block (its credits are read from the ledger) and only when asked.
func TestConsumerBlockOnlyWhenAsked(t *testing.T) {
	with, err := configWithWebhook([]string{"http://127.0.0.1:1"}, "http://127.0.0.1:3/webhooks/psp", "postgres://127.0.0.1:4/x", true)
	if err != nil {
		t.Fatal(err)
	}
	if c := with.Consumer; c == nil || !c.CreateFirst || c.Credits == nil || c.Key != "{{event_id}}" {
		t.Fatalf("consumer section not filled: %+v", with.Consumer)
	}
	without, err := configWithWebhook([]string{"http://127.0.0.1:1"}, "http://127.0.0.1:3/webhooks/psp", "postgres://127.0.0.1:4/x", false)
	if err != nil {
		t.Fatal(err)
	}
	if without.Consumer != nil {
		t.Fatalf("consumer section without asking: %+v", without.Consumer)
	}
}
