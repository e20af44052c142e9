package stripe

import "testing"

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
		acct.events = append(acct.events, &event{id: newID("evt")})
	}
	for i, ev := range acct.events {
		if got := acct.eventFor(ev.id); got != ev {
			t.Fatalf("event %d (%s): found %v", i, ev.id, got)
		}
		if got := acct.eventFor(ev.id + "0"); got != nil {
			t.Fatalf("%s0 found %s", ev.id, got.id)
		}
		if got := acct.eventFor(ev.id[:len(ev.id)-1]); got != nil {
			t.Fatalf("%s cut short found %s", ev.id, got.id)
		}
	}
	for _, id := range []string{"evt_", "evt_000000000000", "evt_ffffffffffffzzzzzz", "pi_" + acct.events[0].id[4:]} {
		if acct.eventFor(id) != nil {
			t.Errorf("%q found an event", id)
		}
	}
}
