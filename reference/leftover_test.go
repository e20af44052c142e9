package reference

import (
	"errors"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/faults"

	"github.com/idemcheck/idemcheck/targets/relay"
)

// TestFailoverWithoutR1sCopyIsNotFired: a failover that ran to the end, with
// a charge of R1's in flight, still did not fire when R1's relay published no
// copy of an in-flight payment's event: R2's inbox had nothing of R1's to
// drop. Undo gives the reason the run's inconclusive verdict shows. Counting
// it fired (the wait for R1 only logged) let the holds run skip the inbox.
func TestFailoverWithoutR1sCopyIsNotFired(t *testing.T) {
	ran := func(noLeftover string) *failed {
		return &failed{done: closedErr(nil), over: true, tookPSP: true, inFlight: 1, noLeftover: noLeftover}
	}
	if f := ran(""); f.Fired() != 1 || f.Undo() != nil {
		t.Fatalf("with R1's copy: fired %d, undo %v; want 1, nil", f.Fired(), f.Undo())
	}
	f := ran("R1's relay published no event of the 1 payment(s) R2 held in flight")
	if f.Fired() != 0 {
		t.Errorf("without R1's copy: fired %d, want 0", f.Fired())
	}
	if err := f.Undo(); err == nil || !strings.Contains(err.Error(), "published no event") {
		t.Errorf("without R1's copy: Undo %v, want the reason", err)
	}
}

// TestTakeOverFailureAfterTheKillBreaksTheRun: a take-over that fails once
// R1 is down leaves no Region serving, and its error says so, so the chaos
// run is errored instead of judging requests that met the dead R1 (it read
// them as failed-but-charged). Before the kill, R1 still serves: a plain
// error, the failover not fired.
func TestTakeOverFailureAfterTheKillBreaksTheRun(t *testing.T) {
	cut := errors.New("cut the replication: refused")
	if err := brokenOnceKilled(true, cut); !errors.Is(err, faults.ErrSystemBroken) || !errors.Is(err, cut) {
		t.Fatalf("after the kill: %v, want ErrSystemBroken wrapping the cause", err)
	}
	if err := brokenOnceKilled(false, cut); errors.Is(err, faults.ErrSystemBroken) || err != cut {
		t.Fatalf("before the kill: %v, want the plain cause", err)
	}
	if err := brokenOnceKilled(true, nil); err != nil {
		t.Fatalf("a take-over that worked: %v", err)
	}
	f := &failed{done: closedErr(brokenOnceKilled(true, cut))}
	if f.Fired() != 0 || !errors.Is(f.Undo(), faults.ErrSystemBroken) {
		t.Fatalf("failed take-over: fired %d, undo %v", f.Fired(), f.Undo())
	}
}

// TestLeftoverOfMatchesThePaymentNotTheEventID: R1's copy is found by the
// in-flight payment's id, so a random event id (the random-event-id mutant)
// is still R1's leftover copy; events of other payments are not.
func TestLeftoverOfMatchesThePaymentNotTheEventID(t *testing.T) {
	evs := []relay.Event{{EventID: "ev_random", PaymentID: "pay_7"}, {EventID: "pay_7:SUCCEEDED", PaymentID: "pay_7"}, {EventID: "pay_8:SUCCEEDED", PaymentID: "pay_8"}}
	if got := leftoverOf(evs, []string{"pay_7", "pay_9"}); len(got) != 1 || got[0] != "pay_7" {
		t.Errorf("leftoverOf: %v, want [pay_7]", got)
	}
	if got := leftoverOf(evs, []string{"pay_9"}); len(got) != 0 {
		t.Errorf("leftoverOf a payment never published: %v", got)
	}
}
