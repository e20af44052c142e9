package failpoint

import (
	"errors"
	"net/http/httptest"
	"os"
	"testing"
	"time"
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

func TestAdminRoundTrip(t *testing.T) {
	reset()
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	mux := srv.URL
	if err := ArmAt(mux, BeforeComplete, "sleep(1ms)"); err != nil {
		t.Fatal(err)
	}
	if err := ArmAt(mux, BeforeComplete, "nonsense"); err == nil {
		t.Fatal("bad action accepted over HTTP")
	}
	_ = Hit(BeforeComplete)
	n, err := Hits(mux, BeforeComplete)
	if err != nil || n != 1 {
		t.Fatalf("Hits = %d, %v; want 1", n, err)
	}
	if err := DisarmAt(mux, BeforeComplete); err != nil {
		t.Fatal(err)
	}
	_ = Hit(BeforeComplete)
	if n, _ := Hits(mux, BeforeComplete); n != 1 {
		t.Fatalf("fired after disarm: %d", n)
	}
}

func TestRegisterArmsPendingEnvEntries(t *testing.T) {
	reset()
	pending["tier-own-point"] = "1*error"
	Register("tier-own-point")
	if err := Hit("tier-own-point"); !errors.Is(err, ErrInjected) {
		t.Fatalf("pending entry not armed on Register: %v", err)
	}
	if err := Arm("tier-own-point", "error"); err != nil {
		t.Fatalf("registered point refused: %v", err)
	}
	Disarm("tier-own-point")
}
