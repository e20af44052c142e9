package reference

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/conform"
	"github.com/idemcheck/idemcheck/conform/report"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/internal/testseed"
)

// chaosRun runs `run --reference --chaos` against the full stack.
func chaosRun(t *testing.T, seed uint64, d time.Duration, sk Stack, only []string) (int, *report.Report) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d*3+3*time.Minute)
	defer cancel()
	if sk.Services == nil {
		sk.Services = sharedServices(t)
	}
	var out, errb bytes.Buffer
	code, rep := RunStack(ctx, conform.Options{Seed: seed, Chaos: true, Duration: d, Quiet: true, ChaosFaults: only,
		Stdout: &out, Stderr: &errb, HTML: t.TempDir()}, sk)
	t.Logf("seed %d, stack %+v, exit %d\n%s", seed, sk, code, out.String())
	if code != conform.ExitPass && code != conform.ExitViolation || testing.Verbose() {
		t.Logf("stderr:\n%s", errb.String())
	}
	return code, rep
}

// TestFullStackChaosPasses: any seed, the whole stack, every applicable fault
// of the catalogue, no violation; every drawn fault fired (else the run is
// inconclusive, which fails here). IDEMCHECK_CHAOS_DURATION=60s is the
// acceptance run; the default keeps the suite short.
func TestFullStackChaosPasses(t *testing.T) {
	d := 20 * time.Second
	if v := os.Getenv("IDEMCHECK_CHAOS_DURATION"); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			t.Fatal(err)
		}
	}
	var only []string
	if v := os.Getenv("IDEMCHECK_CHAOS_FAULTS"); v != "" {
		// Narrows the faults, to tell a shape's false alarm from a fault's.
		only = strings.Split(v, ",")
	}
	code, rep := chaosRun(t, testseed.Seed(t), d, Stack{}, only)
	expectPass(t, code, rep)
	expectShapes(t, rep)
	expectTierBursts(t, rep)
}

// expectTierBursts fails unless the latency bursts took turns on the tiers'
// own Postgres and Valkey links beside the PSP's, and held traffic back on
// each: a read-then-write inside a tier was stretched, not only the PSP's
// replies. (The shared servers have no Kafka link: a run that starts its
// own servers adds tier-kafka.)
func expectTierBursts(t *testing.T, rep *report.Report) {
	t.Helper()
	for _, r := range rep.Results {
		if r.ID != "chaos" || r.Coverage == nil {
			continue
		}
		for _, d := range r.Coverage.Dimensions {
			if !strings.HasPrefix(d.Name, "latency burst on link") {
				continue
			}
			if got := strings.Join(d.Allowed, ","); got != "PSP,tier-postgres,tier-valkey" {
				t.Errorf("bursts' links %s, want PSP,tier-postgres,tier-valkey", got)
			}
			for _, l := range d.Allowed {
				if d.Exercised[l] == 0 {
					t.Errorf("no burst held traffic back on link %s (exercised %v)", l, d.Exercised)
				}
			}
			return
		}
	}
	t.Errorf("the chaos result has no latency-burst coverage")
}

// expectPass fails unless the chaos run passed every check with no finding.
func expectPass(t *testing.T, code int, rep *report.Report) {
	t.Helper()
	if rep == nil || len(rep.Schedule) == 0 {
		t.Fatalf("no chaos run (exit %d)", code)
	}
	for _, r := range rep.Results {
		for _, f := range r.Findings {
			t.Errorf("%s %s: %s", r.ID, f.Kind, f.Message)
		}
		if r.Verdict != scenario.Pass {
			t.Errorf("%s: %s: %s", r.ID, r.Verdict, r.Why)
		}
	}
	if code != conform.ExitPass {
		t.Fatalf("exit %d, want 0", code)
	}
}

// TestFullStackFailoverHolds: R1 fails with a charge in flight and R2 takes
// over, with traffic before and after; the whole history is clean and the
// failover fired.
func TestFullStackFailoverHolds(t *testing.T) {
	code, rep := chaosRun(t, testseed.Seed(t), 8*time.Second, Stack{}, []string{"region-failover"})
	expectPass(t, code, rep)
	if why := rep.Results[0].Why; !strings.Contains(why, "R2 took over") {
		t.Fatalf("the chaos verdict does not say R2 took over: %s", why)
	}
}

// TestFullStackChaosNamesEachTiersMutant: one mutant per tier behind and in
// front of the API, each under the faults that reach its guard; the chaos
// run must fail naming exactly the mutant's kinds (ChaosKinds), no other:
// a mutant that also trips an unrelated kind is a harness bug. It is the
// short kill matrix: one fixed seed, a short run, the schedule narrowed to
// the faults that reach each guard.
func TestFullStackChaosNamesEachTiersMutant(t *testing.T) {
	cases := []struct {
		tier, mutant string
		stack        Stack
		faults       []string
		// short marks a case whose faults each run alone (a kill, a
		// window) and catch on every intent they strike: 3 s of chaos
		// instead of 8 s still draws several.
		short bool
	}{
		// The window kills the owner inside its PSP call with the resolver
		// frozen and the webhook down, so the retry's takeover on the other
		// server is the first to settle the payment (A3) on the whole stack.
		{"api (takeover)", "takeover-new-psp-key", Stack{}, []string{"window-owner-killed-in-charge"}, true},
		// The same window: the retry's takeover finds no durable row under
		// the key (the payment id was random) and charges a second payment.
		{"api (durable guard)", "no-durable-guard-random-id", Stack{}, []string{"window-owner-killed-in-charge"}, true},
		{"resolver", "resolver-fresh-psp-key", Stack{NoWebhook: true}, []string{"psp-reply-lost"}, false},
		// fakepsp saves and replays its 500 while the webhook is down: only
		// the resolver can find the charge (A1).
		{"resolver (saved 500)", "resolver-replay-only", Stack{}, []string{"window-psp-500-saved-no-webhook"}, true},
		{"webhook", "blind-webhook-update", Stack{}, []string{"psp-slow"}, false},
		{"relay (worker without inbox)", "worker-no-inbox", Stack{}, []string{"crash-relay-after-publish-before-delete", "crash-worker-before-offset-commit"}, false},
		{"relay", "relay-delete-before-publish", Stack{}, []string{"crash-relay-after-publish-before-delete"}, false},
		// E1: the worker crashes between the push and SENT, and once more
		// before the redelivery's offset commit: the event comes a third
		// time, and only the record keeps the phone from a third alert.
		// E2: the worker commits the credit and crashes before the push;
		// the redelivery must finish the PENDING notification.
		{"worker (finish on redelivery)", "ack-only-on-redelivery", Stack{}, []string{"crash-worker-after-commit-before-push"}, false},
		{"worker (notification record)", "no-notif-record", Stack{}, []string{"crash-worker-after-push-before-sent-then-before-offset-commit"}, false},
		{"streamjob", "stream-seen-ids-external", Stack{}, []string{"kill-restart-streamjob"}, false},
		// Two callers send one key now and then (A6); their bodies differ.
		{"api (key scope)", "key-not-scoped", Stack{}, []string{"psp-slow"}, false},
		// R2 resumes the charge R1 made and never recorded (G2).
		{"resolver (Region)", "region-attempt-key", Stack{}, []string{"region-failover"}, false},
		{"api and resolver (Region)", "random-event-id", Stack{}, []string{"region-failover"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.tier, func(t *testing.T) {
			sk := tc.stack
			sk.Mutants = tc.mutant
			d := 8 * time.Second
			if tc.short {
				d = 3 * time.Second
			}
			code, rep := chaosRun(t, 5, d, sk, tc.faults)
			r := NewMatrixRun(tc.mutant, 5)
			judgeRun(&r, code, rep)
			t.Log(r)
			if !r.Caught {
				t.Fatalf("mutant %s: %s; want exit 1 naming exactly %v", tc.mutant, r, r.Want)
			}
		})
	}
}
