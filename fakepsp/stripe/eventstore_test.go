package stripe

import (
	"errors"
	"runtime"
	"strconv"
	"testing"

	"github.com/idemcheck/idemcheck/internal/liveheap"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// A page of the newest events, or an event still in the tail, reads no
// chunk: with the store closed they still read; walking on into a chunk,
// finding an event in it, or looking for a payment's events there is an
// error naming the chunk, never fewer events.
func TestEventLogReadsOnlyThePagesItNeeds(t *testing.T) {
	s := &spill.Store{Owner: "test"}
	var l eventLog
	const n = 3*spill.ChunkLen + 10
	var evs []event
	var pi string
	for i := range n {
		if i%3 == 0 {
			pi = newID("pi")
		}
		ev := event{ID: mustEventID(newID("evt")), PI: pi, Type: wordOf("charge.succeeded")}
		l.add(s, ev)
		evs = append(evs, ev)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var got []event
	if err := l.walk(n-1, -1, func(ev event) bool { got = append(got, ev); return len(got) < 10 }); err != nil {
		t.Fatalf("walking the tail: %v", err)
	}
	if len(got) != 10 || got[0] != evs[n-1] || got[9] != evs[n-10] {
		t.Fatalf("walking the tail: %d events, want the newest 10", len(got))
	}
	if ev, i, found, err := l.find(evs[n-1].EventID()); err != nil || !found || i != n-1 || ev != evs[n-1] {
		t.Fatalf("find in the tail: %v %d %v %v", ev, i, found, err)
	}
	if err := l.walk(n-1, -1, func(event) bool { return true }); !errors.Is(err, spill.ErrClosed) {
		t.Fatalf("walking into the chunks on disk: %v, want ErrClosed", err)
	}
	if _, _, found, err := l.find(evs[0].EventID()); !errors.Is(err, spill.ErrClosed) || found {
		t.Fatalf("find on disk: found %v, err %v; want ErrClosed", found, err)
	}
	var about []event
	err := l.about(evs[0].PI, func(ev event) { about = append(about, ev) })
	if !errors.Is(err, spill.ErrClosed) || len(about) != 0 {
		t.Fatalf("about %s: %d events, err %v; want ErrClosed", evs[0].PI, len(about), err)
	}
	// A payment whose events are all in the tail: the pages' bounds skip
	// every chunk on disk. One whose id seqOf cannot read may be anywhere.
	about = nil
	if err := l.about(evs[n-1].PI, func(ev event) { about = append(about, ev) }); err != nil || len(about) != 1 || about[0] != evs[n-1] {
		t.Fatalf("about %s in the tail: %d events, err %v; want its one", evs[n-1].PI, len(about), err)
	}
	if err := l.about("pi_67", func(event) {}); !errors.Is(err, spill.ErrClosed) {
		t.Fatalf("about an id of no sequence: %v, want every page read (ErrClosed)", err)
	}
}

// What an account keeps in memory per event: its page's summary and the
// log's Ref per chunk, far below the 80-byte event (and its strings) it
// kept before. Runs in the short suite too, as a check.
func TestEventLogHeapPerEvent(t *testing.T) {
	b := eventLogHeapPerEvent(t, 500*spill.ChunkLen)
	t.Logf("%.2f B of heap per event", b)
	if b > 4 {
		t.Fatalf("%.2f B of heap per event, want at most 4", b)
	}
}

func BenchmarkEventLogHeapPerEvent(b *testing.B) {
	for range b.N {
		b.ReportMetric(eventLogHeapPerEvent(b, 1000*spill.ChunkLen), "heapB/event")
	}
}

func eventLogHeapPerEvent(tb testing.TB, n int) float64 {
	s := &spill.Store{}
	defer s.Close()
	var l eventLog
	before := liveheap.Bytes()
	for i := range n {
		raw, err := s.Put([]byte(`{"id":"evt"}`))
		if err != nil {
			tb.Fatal(err)
		}
		l.add(s, event{Raw: raw, ID: mustEventID(newID("evt")), Key: "confirm-" + strconv.Itoa(i), Amount: 1000,
			PI: newID("pi"), PIAmount: 1000, Type: wordOf("payment_intent.succeeded"), Op: wordOf("confirm")})
	}
	after := liveheap.Bytes()
	if l.n != n {
		tb.Fatalf("%d events, want %d", l.n, n)
	}
	runtime.KeepAlive(&l)
	return (float64(after) - float64(before)) / float64(n)
}
