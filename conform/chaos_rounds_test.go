package conform

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// TestChaosRoundsCorrectServicePasses: a run three windows long goes in
// three rounds over one deployment, passes against the correct service,
// says so, and leaves the whole judged history on disk for `idemcheck
// check`, which finds no violation in it either.
func TestChaosRoundsCorrectServicePasses(t *testing.T) {
	// Not parallel: its third round must begin within the rounds' wall
	// bound (36 s here; the three took 37 s with the judge, alone).
	dir := t.TempDir()
	f := fixture{flaw: "none", env: `PSP_URL: "http://${PSP_ADDR}"`, extra: pspLink}
	code, rep, _ := f.run(t, Options{Chaos: true, Seed: 1234567, Duration: 6 * time.Second, ChaosWindow: 2 * time.Second, Quiet: true,
		JSON: filepath.Join(dir, "r.json")})
	if rep == nil || code != ExitPass {
		t.Fatalf("exit %d, want 0", code)
	}
	r := rep.Results[0]
	if r.ID != "chaos" || !strings.HasPrefix(r.Why, "3 rounds: ") {
		t.Fatalf("chaos result %s %s: %s, want a pass line of 3 rounds", r.ID, r.Verdict, r.Why)
	}
	if len(r.Attempts) != 0 || len(r.History) != 0 {
		t.Errorf("a clean run kept %d attempts and %d ops as evidence, want none", len(r.Attempts), len(r.History))
	}
	if len(rep.Schedule) == 0 || !strings.HasPrefix(rep.Schedule[0], "3 rounds of 2s") {
		t.Errorf("schedule head %q", rep.Schedule[:min(1, len(rep.Schedule))])
	}
	hist := filepath.Join(dir, "chaos-history.jsonl")
	res, bad, err := checker.CheckFile(hist, checker.CheckOptions{}, history.ReadOptions{}, checker.StreamOptions{})
	if err != nil || len(bad) > 0 {
		t.Fatalf("check %s: %v %v", hist, err, bad)
	}
	m := regexp.MustCompile(`the checker decided (\d+) partitions`).FindStringSubmatch(r.Why)
	if m == nil {
		t.Fatalf("pass line names no partitions: %s", r.Why)
	}
	if len(res.Violations) != 0 || fmt.Sprint(res.Partitions) != m[1] {
		t.Fatalf("offline check of the rounds' history: %d violations over %d partitions, want none over the %s the rounds decided", len(res.Violations), res.Partitions, m[1])
	}
	sched, err := os.ReadFile(filepath.Join(dir, "chaos-history.schedule.txt"))
	if err != nil || !strings.Contains(string(sched), "round 3 of 3 (seed ") {
		t.Fatalf("schedule file: %v\n%s", err, sched)
	}
}

// TestChaosRoundsKeepTheFailingRoundsEvidence: against a service that
// charges again under a lost PSP reply, a run in two rounds finds the double
// charge with the round named, and keeps the attempts its findings cite.
func TestChaosRoundsKeepTheFailingRoundsEvidence(t *testing.T) {
	t.Parallel()
	f := fixture{flaw: "new-psp-key"}
	code, rep, _ := f.run(t, Options{Chaos: true, Seed: 99, Duration: 4 * time.Second, ChaosWindow: 2 * time.Second, Quiet: true, ChaosFaults: []string{"psp-reply-lost"}})
	if code != ExitViolation || !kinds(rep)["double-charge"] {
		t.Fatalf("exit %d kinds %v, want 1 and double-charge", code, kinds(rep))
	}
	r := rep.Results[0]
	seqs := map[int]bool{}
	for _, a := range r.Attempts {
		seqs[a.Seq] = true
	}
	for _, fd := range r.Findings {
		if fd.Rule == scenario.RuleLate {
			continue // the final recount's, after every round
		}
		if !strings.HasPrefix(fd.Message, "round ") {
			t.Errorf("finding %q names no round", fd.Message)
		}
		for _, s := range fd.Seqs {
			if !seqs[s] {
				t.Errorf("finding %q cites attempt %d, which the result does not keep", fd.Kind, s)
			}
		}
	}
	if len(r.History) == 0 {
		t.Error("the failing round's judged history was not kept")
	}
}

// TestChaosRoundsLateChargeAfterItsRoundIsStillFound: a service that
// charges a second time 6 s after a success (a sweeper with a new key)
// makes most of its second charges after their round was judged and
// forgotten; the run's final recount still holds them against the chaos
// check, as late double charges.
func TestChaosRoundsLateChargeAfterItsRoundIsStillFound(t *testing.T) {
	t.Parallel()
	f := fixture{flaw: "sweeper", args: []string{"--sweep-after", "6s"}, quiesce: "8s"}
	code, rep, _ := f.run(t, Options{Chaos: true, Seed: 7, Duration: 4 * time.Second, ChaosWindow: 2 * time.Second, Quiet: true, ChaosFaults: []string{"psp-reply-lost"}})
	if code != ExitViolation {
		t.Fatalf("exit %d, want 1", code)
	}
	late := 0
	for _, fd := range rep.Results[0].Findings {
		if fd.Rule == scenario.RuleLate && fd.Kind == "double-charge" {
			late++
		}
	}
	if rep.Results[0].ID != "chaos" || late == 0 {
		t.Fatalf("chaos result %s %s: %s; want late double charges found by the recount", rep.Results[0].ID, rep.Results[0].Verdict, rep.Results[0].Why)
	}
}
