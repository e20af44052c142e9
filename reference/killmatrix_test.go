package reference

import (
	"bytes"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform"
	"github.com/idemcheck/idemcheck/conform/report"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/targets/mutant"
)

// chaosReport is a chaos run whose history starts at 10 s and has intents A
// (called at 10.5 s) and B (at 13 s), with findings of kinds on B.
func chaosReport(verdict scenario.Verdict, kinds ...string) *report.Report {
	h := history.History{
		{Process: "c1", Op: history.OpCreate, Call: 10e9, Intent: "A"},
		{Process: "c2", Op: history.OpCreate, Call: 10.5e9, Intent: "A"},
		{Process: "c3", Op: history.OpCreate, Call: 13e9, Intent: "B"},
	}
	res := scenario.Result{ID: "chaos", Verdict: verdict, History: h}
	for _, k := range kinds {
		res.Findings = append(res.Findings, scenario.Finding{Kind: k, Intent: "B"})
	}
	return &report.Report{Results: []scenario.Result{res}}
}

// TestJudgeRunWantsTheExactKinds: a run is caught only with exactly the
// switch's kinds; an extra kind, a missing one, a pass or an inconclusive
// run are not; the detection time is the violating intent's first op after
// the history's first.
func TestJudgeRunWantsTheExactKinds(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sw     string
		code   int
		rep    *report.Report
		caught bool
		detect float64
	}{
		{"exact", "takeover-new-psp-key", conform.ExitViolation, chaosReport(scenario.Violation, "double-charge"), true, 3},
		{"extra kind", "takeover-new-psp-key", conform.ExitViolation, chaosReport(scenario.Violation, "double-charge", "lost-effect"), false, 3},
		{"two kinds wanted, one seen", "resolver-replay-only", conform.ExitViolation, chaosReport(scenario.Violation, "failed-but-charged"), false, 3},
		{"two kinds wanted and seen", "resolver-replay-only", conform.ExitViolation, chaosReport(scenario.Violation, "lost-effect", "failed-but-charged"), true, 3},
		{"a kind the bug may also show", "blind-webhook-update", conform.ExitViolation, chaosReport(scenario.Violation, "double-credit", "notification-stacked"), true, 3},
		{"void answered, then in progress", "resolve-read-only", conform.ExitViolation, chaosReport(scenario.Violation, "effect-after-void", "inconsistent-answer"), true, 3},
		{"only the kind it may show", "blind-webhook-update", conform.ExitViolation, chaosReport(scenario.Violation, "notification-stacked"), false, 3},
		{"a kind another switch may show", "blind-webhook-update", conform.ExitViolation, chaosReport(scenario.Violation, "double-credit", "lost-effect"), false, 3},
		{"passed", "takeover-new-psp-key", conform.ExitPass, chaosReport(scenario.Pass), false, -1},
		{"inconclusive", "takeover-new-psp-key", conform.ExitViolation, chaosReport(scenario.Inconclusive), false, -1},
		{"no switch, clean", "", conform.ExitPass, chaosReport(scenario.Pass), true, -1},
		{"no switch, a finding", "", conform.ExitViolation, chaosReport(scenario.Violation, "double-charge"), false, 3},
		{"no report", "takeover-new-psp-key", conform.ExitUsage, nil, false, -1},
	} {
		r := NewMatrixRun(tc.sw, 0)
		judgeRun(&r, tc.code, tc.rep)
		if r.Caught != tc.caught || r.DetectS != tc.detect || r.Exit != tc.code {
			t.Errorf("%s: %s; want caught %v, detect %v s", tc.name, r, tc.caught, tc.detect)
		}
	}
}

// TestSummarizeLeavesTheNoSwitchRunsOut: the kill rate and the detection
// times are over the switch runs; the median of an even count is the mean
// of the middle two.
func TestSummarizeLeavesTheNoSwitchRunsOut(t *testing.T) {
	runs := []MatrixRun{
		{Switch: "", Caught: true, DetectS: -1},
		{Switch: "a", Caught: true, DetectS: 4},
		{Switch: "a", Caught: true, DetectS: 1},
		{Switch: "b", Caught: false, DetectS: -1},
		{Switch: "b", Caught: true, DetectS: 9},
		{Switch: "c", Caught: true, DetectS: 2},
	}
	s := Summarize(runs)
	if s.Caught != 4 || s.Runs != 5 || s.KillRate != 0.8 || s.DetectP50 != 3 || s.DetectMax != 9 || s.CleanRuns != 1 || s.NoSwitchRuns != 1 {
		t.Fatalf("summary %+v", s)
	}
	var b bytes.Buffer
	PrintMatrix(&b, runs)
	for _, want := range []string{"(no switch)  1/1", "a            2/2", "b            1/2"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("matrix lacks %q:\n%s", want, b.String())
		}
	}
}

// TestChaosAcceptsOrRefusesEverySwitch: every switch of the catalogue and
// of the worker is either accepted by chaos, with its kinds, or refused
// with why; the masked ones are refused by --chaos itself.
func TestChaosAcceptsOrRefusesEverySwitch(t *testing.T) {
	accepted, refused := ChaosSwitches()
	for _, s := range accepted {
		if len(ChaosKinds(s)) == 0 {
			t.Errorf("%s: chaos accepts it but names no kind for it", s)
		}
	}
	for _, e := range mutant.Catalogue {
		if _, ok := refused[string(e.Switch)]; !ok && !contains(accepted, string(e.Switch)) {
			t.Errorf("%s is neither accepted nor refused", e.Switch)
		}
	}
	for _, s := range []mutant.Switch{mutant.CheckThenInsert, mutant.CompleteUnconditional} {
		if why := chaosRefuses(mutant.Set{s: true}); !strings.Contains(why, "masked") {
			t.Errorf("--chaos does not refuse %s as masked: %q", s, why)
		}
	}
	// A switch whose window chaos does not make is refused as out of
	// reach, not accepted and passed.
	for _, s := range []mutant.Switch{mutant.StreamNoFullFlush, mutant.StreamTagLastCompleted, mutant.StreamNoWatermarkFloor, mutant.NoDedupKey} {
		if why := chaosRefuses(mutant.Set{s: true}); !strings.Contains(why, "out of chaos's reach") {
			t.Errorf("--chaos does not refuse %s as out of reach: %q", s, why)
		}
	}
	// Every refusal names where the switch is caught instead.
	for s, why := range chaosRefused {
		if !strings.Contains(why, "suites/") && !strings.Contains(why, "run --only") {
			t.Errorf("%s is refused without naming the spec or check that catches it: %q", s, why)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
