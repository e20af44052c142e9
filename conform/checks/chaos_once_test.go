package checks

import (
	"slices"
	"testing"

	"github.com/idemcheck/idemcheck/faults"
)

// TestPlaceOnce: a once-only fault lands on exactly one intent of the middle
// third, the same one for the same seed, and the faults it ends are gone from
// every intent that could run beside it or after it, and only from those.
func TestPlaceOnce(t *testing.T) {
	names := []string{"replication-lag", "kill-restart-api", "psp-reply-lost"}
	for _, seed := range []uint64{1, 7, 42, 1796127724348541514} {
		plan := PlaceOnce(Schedule(seed, names, 3, 120), seed, []faults.Fault{faults.RegionFailover})
		again := PlaceOnce(Schedule(seed, names, 3, 120), seed, []faults.Fault{faults.RegionFailover})
		k := -1
		for i, p := range plan {
			if p.Fault == faults.RegionFailover.Name() {
				if k >= 0 {
					t.Fatalf("seed %d: failover on intents %d and %d", seed, k, i)
				}
				k = i
			}
			if p != again[i] {
				t.Fatalf("seed %d: intent %d differs between two placements: %v / %v", seed, i, p, again[i])
			}
		}
		if k < 40 || k >= 80 {
			t.Fatalf("seed %d: failover on intent %d, not in the middle third [40, 80)", seed, k)
		}
		lagsBefore := 0
		for i, p := range plan {
			if p.Fault == "replication-lag" {
				if i >= k-chaosWorkers {
					t.Errorf("seed %d: replication-lag on intent %d, after the failover on %d could start", seed, i, k)
				}
				lagsBefore++
			}
		}
		drawn := 0
		for i, p := range Schedule(seed, names, 3, 120) {
			if p.Fault == "replication-lag" && i < k-chaosWorkers {
				drawn++
			}
		}
		if lagsBefore != drawn {
			t.Errorf("seed %d: %d replication-lag intents kept before the failover, the schedule drew %d", seed, lagsBefore, drawn)
		}
	}
}

// TestScheduleSharesKeysAcrossCallers: some intents send the key an earlier
// intent of another caller sent, never one of their own caller's.
func TestScheduleSharesKeysAcrossCallers(t *testing.T) {
	plan := Schedule(42, []string{"psp-slow"}, 3, 400)
	shared := 0
	type scope struct{ caller, keyOf int }
	seen := map[scope]int{}
	for _, p := range plan {
		key := p.N // the intent's own key, or the one it shares
		if p.KeyOf > 0 {
			shared++
			key = p.KeyOf
			if p.KeyOf >= p.N || plan[p.KeyOf-1].KeyOf != 0 {
				t.Fatalf("intent %d shares the key of intent %d, which is not an earlier intent's own key", p.N, p.KeyOf)
			}
		}
		if n, dup := seen[scope{p.Caller, key}]; dup {
			t.Fatalf("caller %d sends the key of intent %d for intents %d and %d: one scope, two intents", p.Caller, key, n, p.N)
		}
		seen[scope{p.Caller, key}] = p.N
	}
	if shared < 20 || shared > 60 {
		t.Fatalf("%d of 400 intents share a key, want about one in twelve", shared)
	}
	if one := Schedule(42, []string{"psp-slow"}, 1, 400); slices.ContainsFunc(one, func(p Planned) bool { return p.KeyOf > 0 }) {
		t.Fatal("a single caller shares keys with itself")
	}
}

// TestScheduleSharesAKeyEarly: whatever the seed, one of intents 2-4 sends
// intent 1's key from another caller, so a short run meets A6's window.
func TestScheduleSharesAKeyEarly(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		for _, callers := range []int{2, 3} {
			plan := Schedule(seed, []string{"psp-slow"}, callers, 40)
			early := 0
			for _, p := range plan[1:4] {
				if p.KeyOf == 1 {
					early++
					if p.Caller == plan[0].Caller {
						t.Fatalf("seed %d: intent %d sends intent 1's key from intent 1's own caller %d", seed, p.N, p.Caller)
					}
				}
			}
			if early == 0 {
				t.Fatalf("seed %d, %d callers: none of intents 2-4 sends intent 1's key", seed, callers)
			}
		}
	}
}

// TestPlaceOnceKeepsEveryDrawnFault: the once fault never lands on the one
// intent the opening window gave a fault, and a fault it ends that the
// schedule drew only after it is moved before it, so every fault the
// schedule drew is still drawn, whatever the seed.
func TestPlaceOnceKeepsEveryDrawnFault(t *testing.T) {
	names := []string{"client-reply-lost", "dependency-reply-lost", "replication-lag", "kill-restart-api", "kill-restart-resolver",
		"kill-restart-webhook", "kill-restart-relay", "kill-restart-worker", "kill-restart-connector", "kill-restart-streamjob",
		"pause-api", "psp-reply-lost", "psp-reply-held", "psp-slow", "psp-slow-after-charge", "psp-500-after-charge", "psp-429",
		"psp-gate-before-charge", "psp-webhook-duplicates", "psp-webhook-out-of-order", "crash-api-after-psp-call",
		"crash-api-before-complete", "crash-relay-after-publish-before-delete", "crash-worker-after-commit-before-push",
		"crash-worker-after-push-before-sent-then-before-offset-commit", "crash-worker-before-offset-commit",
		"crash-connector-before-ack", "crash-streamjob-after-sink-write", "crash-streamjob-after-checkpoint-commit",
		"window-owner-killed-in-charge", "window-owner-frozen-in-charge", "window-psp-500-saved-no-webhook",
		"window-psp-reply-lost-every-execution-no-webhook", "window-psp-held-past-timeout-no-webhook", "window-lb-held-past-deadline"}
	shapes := shapeCatalogue
	for seed := uint64(1); seed <= 300; seed++ {
		plan := PlaceOnce(Schedule(seed, names, 2, 80, shapes...), seed, []faults.Fault{faults.RegionFailover})
		var missing []string
		for _, n := range append(slices.Clone(names), faults.RegionFailover.Name()) {
			if !slices.ContainsFunc(plan, func(p Planned) bool { return p.Fault == n }) {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			t.Fatalf("seed %d: the plan of 80 intents never draws %v", seed, missing)
		}
	}
}
