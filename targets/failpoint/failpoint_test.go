package failpoint

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/faults"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]Action{
		"pause": {Kind: "pause"}, "crash": {Kind: "crash"}, "error": {Kind: "error"},
		"sleep(250ms)": {Kind: "sleep", Sleep: 250 * time.Millisecond}, "2*error": {Kind: "error", Count: 2},
	} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "boom", "sleep(x)", "0*pause", "-1*crash", "sleep(-1s)"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

// The points these tests arm; the tiers register theirs in their own inits.
const (
	AfterClaim    = "test-after-claim"
	BeforePSPCall = "test-before-psp-call"
)

func init() { Register(AfterClaim, BeforePSPCall) }

func reset() {
	mu.Lock()
	points = map[string]*point{}
	mu.Unlock()
}

func TestHitCountsAndDisarmsAfterCount(t *testing.T) {
	reset()
	if err := Hit(AfterClaim); err != nil {
		t.Fatal(err)
	}
	if err := Arm(AfterClaim, "2*error"); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := Hit(AfterClaim); !errors.Is(err, ErrInjected) {
			t.Fatalf("hit %d: %v, want ErrInjected", i, err)
		}
	}
	if err := Hit(AfterClaim); err != nil {
		t.Fatalf("third hit after 2*error: %v", err)
	}
	for _, s := range Snapshot() {
		if s.Name == AfterClaim && (s.Passes != 4 || s.Fired != 2 || s.Armed != "") {
			t.Fatalf("status %+v, want 4 passes, 2 fired, disarmed", s)
		}
	}
}

func TestCrashExitsWithCrashCode(t *testing.T) {
	reset()
	var code int
	exit = func(c int) { code = c }
	defer func() { exit = os.Exit }()
	if err := Arm(BeforePSPCall, "crash"); err != nil {
		t.Fatal(err)
	}
	_ = Hit(BeforePSPCall)
	if code != CrashCode {
		t.Fatalf("exit code %d, want %d", code, CrashCode)
	}
}

func TestUnknownPointRefused(t *testing.T) {
	if err := Arm("no-such-point", "pause"); err == nil {
		t.Fatal("unknown point armed")
	}
}

func TestRegisterIsIdempotent(t *testing.T) {
	reset()
	n := len(Points)
	Register("tier-own-point", "tier-own-point")
	Register("tier-own-point")
	if len(Points) != n+1 {
		t.Fatalf("Points grew by %d, want 1", len(Points)-n)
	}
	if err := Arm("tier-own-point", "1*error"); err != nil {
		t.Fatalf("registered point refused: %v", err)
	}
	if err := Hit("tier-own-point"); !errors.Is(err, ErrInjected) {
		t.Fatalf("armed point did not fire: %v", err)
	}
}

// TestCrashCodeIsTheFaultsOwn: the fault catalogue counts a crash failpoint
// as fired only on this exit status, and cannot import this package.
func TestCrashCodeIsTheFaultsOwn(t *testing.T) {
	if CrashCode != faults.CrashExitCode {
		t.Fatalf("failpoint.CrashCode %d, faults.CrashExitCode %d", CrashCode, faults.CrashExitCode)
	}
}
