package stripe

import (
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// TestEventForFindsByID: without a map, an event is found by its id in the
// account's events, which newID sorts as they are appended; ids that are
// not there (another's random part, before the first, after the last) are
// not found.
func TestEventForFindsByID(t *testing.T) {
	acct := newAccount()
	if acct.eventFor("evt_x") != nil {
		t.Fatal("found an event in an empty account")
	}
	for range 300 {
		newID("pi") // other objects' ids interleave with events'
		acct.events = append(acct.events, &event{id: mustEventID(newID("evt"))})
	}
	for i, ev := range acct.events {
		if got := acct.eventFor(ev.EventID()); got != ev {
			t.Fatalf("event %d (%s): found %v", i, ev.EventID(), got)
		}
		if got := acct.eventFor(ev.EventID() + "0"); got != nil {
			t.Fatalf("%s0 found %s", ev.EventID(), got.EventID())
		}
		if got := acct.eventFor(ev.EventID()[:len(ev.EventID())-1]); got != nil {
			t.Fatalf("%s cut short found %s", ev.EventID(), got.EventID())
		}
	}
	for _, id := range []string{"evt_", "evt_000000000000", "evt_ffffffffffffzzzzzz", "pi_" + acct.events[0].EventID()[4:]} {
		if acct.eventFor(id) != nil {
			t.Errorf("%q found an event", id)
		}
	}
}

// An id with an upper-case digit spells the same bytes as one newID made
// but is another id: it finds nothing, and the event says its own id back.
func TestEventForUpperCaseIsAnotherID(t *testing.T) {
	acct := newAccount()
	ev := &event{id: mustEventID(newID("evt")), typ: wordOf("charge.succeeded"), op: wordOf("refund"), key: "k", amount: 7}
	acct.events = append(acct.events, ev)
	id := ev.EventID()
	upper := id[:4] + strings.ToUpper(id[4:])
	if upper == id {
		upper = id[:len(id)-1] + "G" // all digits: a non-hex digit instead
	}
	if acct.eventFor(upper) != nil {
		t.Fatalf("%s found event %s", upper, id)
	}
	if got := acct.eventFor(id); got != ev || got.EventType() != "charge.succeeded" ||
		got.FaultTarget() != (core.Target{Key: "k", Amount: 7, Op: "refund"}) {
		t.Fatalf("event %s: found %v, type %q, target %+v", id, got, got.EventType(), got.FaultTarget())
	}
}
