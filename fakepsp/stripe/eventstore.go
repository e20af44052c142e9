package stripe

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// eventLog is an account's events in creation order, on the PSP's disk in
// pages of spill.ChunkLen (a spill.Log; in mem without a store): Stripe
// lists events for 30 days, so a soak keeps every one readable, and 80
// bytes of each in memory grew its heap without bound (issue 54). Memory
// keeps 32 bytes a page: its first event's id, as ids sort by creation, so
// a binary search of the pages then of one page finds an event (find); and
// the bounds of what its events are about, so EventsAbout reads only the
// pages that may hold a PaymentIntent's events. A list reads only the pages
// its page of events spans (walk). Guarded by API.mu.
type eventLog struct {
	disk  *spill.Log[event]
	mem   []event
	n     int
	pages []eventPage
	// cached is the last whole page read from disk, so that retrieving a
	// recent event (as a webhook handler does on each delivery) and paging
	// through a list decode each chunk once; at is its index + 1, 0 none.
	cached []event
	at     int
}

type eventPage struct {
	first eventID
	// piLo and piHi bound seqOf of the PaymentIntents its events are
	// about; an id seqOf cannot read widens them to every sequence.
	piLo, piHi uint64
}

// add appends ev; its log goes to s, the API's store, or stays in memory
// without one.
func (l *eventLog) add(s *spill.Store, ev event) {
	if l.n == 0 && s != nil {
		l.disk = spill.NewLog[event](s)
	}
	if l.n%spill.ChunkLen == 0 {
		l.pages = append(l.pages, eventPage{first: ev.ID, piLo: math.MaxUint64})
	}
	pg := &l.pages[len(l.pages)-1]
	if seq, ok := seqOf(ev.PI); ok {
		pg.piLo, pg.piHi = min(pg.piLo, seq), max(pg.piHi, seq)
	} else {
		pg.piLo, pg.piHi = 0, math.MaxUint64
	}
	if l.disk != nil {
		l.disk.Add(ev)
	} else {
		l.mem = append(l.mem, ev)
	}
	l.n++
}

// page reads page p. An error is a chunk that cannot be read back: the
// caller answers it as an error, never as fewer events.
func (l *eventLog) page(p int) ([]event, error) {
	if l.disk == nil {
		return l.mem[p*spill.ChunkLen : min((p+1)*spill.ChunkLen, l.n)], nil
	}
	if l.at == p+1 {
		return l.cached, nil
	}
	evs, err := l.disk.Page(p)
	if err != nil {
		return nil, fmt.Errorf("fakepsp: the account's events %d-%d cannot be read back: %w",
			p*spill.ChunkLen+1, min((p+1)*spill.ChunkLen, l.n), err)
	}
	if len(evs) == spill.ChunkLen { // a page still filling would go stale
		l.cached, l.at = evs, p+1
	}
	return evs, nil
}

// find is the event id names and its index; false when the account has
// none by that id.
func (l *eventLog) find(id string) (event, int, bool, error) {
	want, ok := parseEventID(id)
	if !ok {
		return event{}, 0, false, nil
	}
	p := sort.Search(len(l.pages), func(i int) bool { return bytes.Compare(l.pages[i].first[:], want[:]) > 0 }) - 1
	if p < 0 {
		return event{}, 0, false, nil
	}
	evs, err := l.page(p)
	if err != nil {
		return event{}, 0, false, fmt.Errorf("fakepsp: event %s: %w", id, err)
	}
	i := sort.Search(len(evs), func(i int) bool { return bytes.Compare(evs[i].ID[:], want[:]) >= 0 })
	if i < len(evs) && evs[i].ID == want {
		return evs[i], p*spill.ChunkLen + i, true, nil
	}
	return event{}, 0, false, nil
}

// walk passes fn the events from index i on, towards older ones (step -1)
// or newer ones (+1), until fn returns false or none is left, reading one
// page at a time.
func (l *eventLog) walk(i, step int, fn func(event) bool) error {
	for 0 <= i && i < l.n {
		p := i / spill.ChunkLen
		evs, err := l.page(p)
		if err != nil {
			return err
		}
		for ; 0 <= i && i < l.n && i/spill.ChunkLen == p; i += step {
			if !fn(evs[i-p*spill.ChunkLen]) {
				return nil
			}
		}
	}
	return nil
}

// about passes fn the events about the PaymentIntent pi, in order. A page
// that cannot be read is skipped, the later ones still read, and the first
// such error returned: the caller has fewer events than were raised.
func (l *eventLog) about(pi string, fn func(event)) error {
	seq, ok := seqOf(pi)
	var first error
	for p, pg := range l.pages {
		if ok && (seq < pg.piLo || seq > pg.piHi) {
			continue
		}
		evs, err := l.page(p)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		for _, ev := range evs {
			if ev.PI == pi {
				fn(ev)
			}
		}
	}
	return first
}

// seqOf is the sequence newID numbered id with: the 12 hexadecimal digits
// after its prefix. The pages' bounds need only that an id always reads
// the same, so an id newID did not make (a digit in upper case, another
// random part) costs pages read, never an event missed.
func seqOf(id string) (uint64, bool) {
	i := strings.IndexByte(id, '_') + 1
	if i == 0 || len(id) < i+12 {
		return 0, false
	}
	var b [8]byte
	if _, err := hex.Decode(b[2:], []byte(id[i:i+12])); err != nil {
		return 0, false
	}
	return binary.BigEndian.Uint64(b[:]), true
}
