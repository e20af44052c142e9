package streamjob

import (
	"testing"

	"github.com/idemcheck/idemcheck/targets/connector"
)

const h = int64(7200)

func change(id, state string, amount, t int64) connector.Event {
	return connector.Event{Kind: connector.KindChange, EventID: connector.ChangeID(id, state), PaymentID: id,
		Merchant: "m1", State: state, Amount: amount, Day: "2026-12-01", EventTime: t}
}

func beat(t int64) connector.Event {
	return connector.Event{Kind: connector.KindHeartbeat, EventTime: t}
}

func TestDedupVersionAndTimers(t *testing.T) {
	s := NewState()
	r := Rules{Version: 2, Horizon: h}
	k := Key{"m1", "2026-12-01"}
	for _, c := range []struct {
		e    connector.Event
		want Verdict
	}{
		{change("pay_1", "PENDING", 12000, 10), Ignored},
		{change("pay_1", "SUCCEEDED", 12000, 11), Counted},
		{change("pay_1", "SUCCEEDED", 12000, 11), Duplicate},
		{change("pay_8", "FAILED", 500, 12), Ignored},
		{beat(11 + h - 1), Ignored},
		{change("pay_1", "SUCCEEDED", 12000, 11), Duplicate}, // its timer has not fired yet
		{beat(11 + h), Ignored},                              // fires pay_1's timer
		{change("pay_1", "SUCCEEDED", 12000, 11), Late},      // same boundary as the timer
	} {
		if v, _ := s.Apply(c.e, r, s); v != c.want {
			t.Fatalf("%s at %d: %v, want %v", c.e.EventID, c.e.EventTime, v, c.want)
		}
	}
	if s.Totals[k] != 12000 || len(s.Seen) != 0 {
		t.Fatalf("totals %v seen %v", s.Totals, s.Seen)
	}
	if v, _ := NewState().Apply(change("pay_8", "FAILED", 500, 12), Rules{Version: 1, Horizon: h}, NewState()); v != Counted {
		t.Fatalf("version 1 must count a declined payment, got %v", v)
	}
}

// F4 in miniature: after a restore the live watermark starts from nothing;
// the saved floor still rejects a copy that was late before the crash.
func TestFloorRejectsLateCopyAfterRestore(t *testing.T) {
	s := NewState()
	r := Rules{Version: 2, Horizon: h}
	s.Apply(change("pay_7", "SUCCEEDED", 3000, 100), r, s)
	s.Apply(beat(100+h+5), r, s)
	floor := s.Bound(Rules{})
	restored := NewState()
	restored.Totals, restored.Seen, restored.Floor = s.Totals, s.Seen, floor
	restored.Restore(h)
	if v, _ := restored.Apply(change("pay_7", "SUCCEEDED", 3000, 100), r, restored); v != Late {
		t.Fatalf("reference: %v, want late", v)
	}
	mut := NewState()
	mut.Totals, mut.Seen, mut.Floor = map[Key]int64{{"m1", "2026-12-01"}: 3000}, map[string]int64{}, floor
	nf := Rules{Version: 2, Horizon: h, NoFloor: true}
	if v, _ := mut.Apply(change("pay_7", "SUCCEEDED", 3000, 100), nf, mut); v != Counted || mut.Totals[Key{"m1", "2026-12-01"}] != 6000 {
		t.Fatalf("no-floor mutant: %v totals %v, want the copy counted twice", v, mut.Totals)
	}
}
