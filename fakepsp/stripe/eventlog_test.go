package stripe

import (
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/fakepsp/core"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// TestEventForFindsByID: without a map, an event is found by its id in the
// account's events, which newID sorts as they are appended: in memory, and
// on disk across its chunks' boundaries; ids that are not there (another's
// random part, before the first, after the last) are not found.
func TestEventForFindsByID(t *testing.T) {
	for _, disk := range []bool{false, true} {
		var s *spill.Store
		if disk {
			s = &spill.Store{Owner: "test"}
			defer s.Close()
		}
		acct := newAccount()
		if _, found := eventFor(t, acct, "evt_x"); found {
			t.Fatal("found an event in an empty account")
		}
		var ids []eventID
		for range 300 {
			newID("pi") // other objects' ids interleave with events'
			ev := event{ID: mustEventID(newID("evt"))}
			acct.events.add(s, ev)
			ids = append(ids, ev.ID)
		}
		if disk && s.Size() == 0 {
			t.Fatal("no chunk of events was written to disk")
		}
		for i, e := range ids {
			id := e.String()
			if got, found := eventFor(t, acct, id); !found || got.ID != e {
				t.Fatalf("disk %v: event %d (%s): found %v %s", disk, i, id, found, got.EventID())
			}
			if got, found := eventFor(t, acct, id+"0"); found {
				t.Fatalf("%s0 found %s", id, got.EventID())
			}
			if got, found := eventFor(t, acct, id[:len(id)-1]); found {
				t.Fatalf("%s cut short found %s", id, got.EventID())
			}
		}
		for _, id := range []string{"evt_", "evt_000000000000", "evt_ffffffffffffzzzzzz", "pi_" + ids[0].String()[4:]} {
			if _, found := eventFor(t, acct, id); found {
				t.Errorf("%q found an event", id)
			}
		}
	}
}

// An id with an upper-case digit spells the same bytes as one newID made
// but is another id: it finds nothing, and the event says its own id back.
func TestEventForUpperCaseIsAnotherID(t *testing.T) {
	acct := newAccount()
	ev := event{ID: mustEventID(newID("evt")), Type: wordOf("charge.succeeded"), Op: wordOf("refund"), Key: "k", Amount: 7}
	acct.events.add(nil, ev)
	id := ev.EventID()
	upper := id[:4] + strings.ToUpper(id[4:])
	if upper == id {
		upper = id[:len(id)-1] + "G" // all digits: a non-hex digit instead
	}
	if _, found := eventFor(t, acct, upper); found {
		t.Fatalf("%s found event %s", upper, id)
	}
	if got, found := eventFor(t, acct, id); !found || got != ev || got.EventType() != "charge.succeeded" ||
		got.FaultTarget() != (core.Target{Key: "k", Amount: 7, Op: "refund"}) {
		t.Fatalf("event %s: found %v %+v, type %q, target %+v", id, found, got, got.EventType(), got.FaultTarget())
	}
}

func eventFor(t *testing.T, acct *account, id string) (event, bool) {
	t.Helper()
	ev, i, found, err := acct.events.find(id)
	if err != nil {
		t.Fatalf("find %s: %v", id, err)
	}
	if found {
		if at := atIndex(t, acct, i); at != ev {
			t.Fatalf("find %s: index %d holds %s", id, i, at.EventID())
		}
	}
	return ev, found
}

func atIndex(t *testing.T, acct *account, i int) event {
	t.Helper()
	var got event
	if err := acct.events.walk(i, 1, func(ev event) bool { got = ev; return false }); err != nil {
		t.Fatal(err)
	}
	return got
}
