package checks

import (
	"errors"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/faults"
)

// TestPSPFamilyIsFakepspsKinds: the catalogue's PSP family has exactly one
// fault per fakepsp kind, so a kind added to fakepsp's table without its
// catalogue value (or the reverse) fails here.
func TestPSPFamilyIsFakepspsKinds(t *testing.T) {
	var got []string
	for _, f := range faults.All() {
		if p, ok := f.(faults.PSPFault); ok {
			got = append(got, p.Kind)
		}
	}
	slices.Sort(got)
	var want []string
	for _, k := range fakepsp.Kinds() {
		want = append(want, string(k))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("PSP faults arm kinds %v; fakepsp has %v", got, want)
	}
}

// TestScheduleDrawsEveryApplicableFault: over a long run the schedule puts
// every fault it is given on some intent, and nothing else.
func TestScheduleDrawsEveryApplicableFault(t *testing.T) {
	names := faults.Names(faults.All())
	seen := map[string]bool{}
	for _, p := range Schedule(42, names, 3, 400) {
		seen[p.Fault] = true
	}
	for _, n := range names {
		if !seen[n] {
			t.Errorf("400 intents never drew %s", n)
		}
	}
	if len(seen) != len(names)+1 {
		t.Errorf("drew %d kinds, want %d faults and %q", len(seen), len(names), NoFault)
	}
}

// TestChaosVerdictIsHonest: a drawn fault that never fired, or a run in which
// no intent succeeded, leaves the chaos check inconclusive, naming why.
func TestChaosVerdictIsHonest(t *testing.T) {
	mk := func() *tally {
		return &tally{planned: map[string]int{}, fired: map[string]int{}, failed: map[string]string{}}
	}
	tl := mk()
	tl.note("psp-reply-lost", true, nil)
	tl.note("kill-restart-relay", false, nil)
	tl.note("kill-restart-relay", false, errors.New("no relay"))
	tl.ok.Add(1)
	tt := &scenario.T{}
	chaosVerdict(tt, tl, 3)
	if len(tt.Inconc) != 1 || !strings.Contains(tt.Inconc[0], "kill-restart-relay (planned 2 times): no relay") {
		t.Fatalf("inconclusive %q, want the relay kill named with its count and error", tt.Inconc)
	}
	tl = mk()
	tl.note("psp-reply-lost", true, nil)
	tt = &scenario.T{}
	chaosVerdict(tt, tl, 3)
	if len(tt.Inconc) != 1 || !strings.Contains(tt.Inconc[0], "none of the 3 intents ended succeeded") {
		t.Fatalf("inconclusive %q, want no-success named", tt.Inconc)
	}
	tl.ok.Add(2)
	tt = &scenario.T{}
	chaosVerdict(tt, tl, 3)
	if len(tt.Inconc) != 0 || !strings.Contains(tt.Why, "1 faults injected and 1 fired") {
		t.Fatalf("inconclusive %q, pass line %q", tt.Inconc, tt.Why)
	}
}

// The IDs a config may mark required are the checks' own.
func TestRequiredIDsAreTheChecks(t *testing.T) {
	var safety, vectors []string
	for _, c := range All() {
		if c.Level == scenario.Safety {
			safety = append(safety, c.ID)
		} else {
			vectors = append(vectors, c.ID)
		}
	}
	if !slices.Equal(safety, config.SafetyIDs) {
		t.Errorf("config.SafetyIDs %v, checks %v", config.SafetyIDs, safety)
	}
	for _, v := range vectors {
		if !slices.Contains(config.VectorIDs, v) {
			t.Errorf("vector %s missing from config.VectorIDs", v)
		}
	}
}

// TestEveryCheckHasItsFile: a check's Run is defined in the file its ID
// names (A1 in a1.go, S-restart in s_restart.go, P-4xx-replayed in
// p_4xx_replayed.go), so a newcomer finds any check from its ID alone.
func TestEveryCheckHasItsFile(t *testing.T) {
	cs := append(append(All(), WebhookChecks()...), QueueChecks()...)
	cs = append(cs, ChaosCheck(time.Second, nil))
	for _, c := range cs {
		want := strings.ToLower(strings.ReplaceAll(c.ID, "-", "_")) + ".go"
		pc := reflect.ValueOf(c.Run).Pointer()
		file, _ := runtime.FuncForPC(pc).FileLine(pc)
		if got := filepath.Base(file); got != want {
			t.Errorf("check %s runs from %s, want %s", c.ID, got, want)
		}
	}
}

// TestLateRetryNeverCarriesALostDependencyReply: the late retry holds the
// owner's PSP answer at the front, so a lost reply on a dependency link
// armed beside it could never fire (seed 1796317691445900037 drew the pair
// on intent 1 and was inconclusive every time).
func TestLateRetryNeverCarriesALostDependencyReply(t *testing.T) {
	names := faults.Names(faults.All())
	late := 0
	for seed := uint64(0); seed < 200; seed++ {
		for _, p := range Schedule(seed, names, 3, 80, Shapes()...) {
			if p.Shape == ShapeLateRetry {
				late++
				if p.Fault == faults.DependencyReplyLost.Name() {
					t.Fatalf("seed %d intent %d: late-retry with %s", seed, p.N, p.Fault)
				}
			}
		}
	}
	if late == 0 {
		t.Fatal("no late-retry drawn in 200 seeds: the test proves nothing")
	}
	plan := Schedule(1796317691445900037, names, 3, 80, Shapes()...)
	if plan[0].Fault == faults.DependencyReplyLost.Name() && plan[0].Shape != ShapePlain {
		t.Fatalf("seed 1796317691445900037 intent 1: shape %s", plan[0].Shape)
	}
}
