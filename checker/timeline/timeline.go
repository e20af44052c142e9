// Package timeline records a story as it happens, in story seconds, and
// prints it as text and as one self-contained HTML page: every event with its
// tier, and for every repeat what was sent again and what made it harmless
// (every place a repeat is born, as it happened).
//
// It is pure bookkeeping: the caller says when the story started, how long a
// story second lasts, and when the tiers' clocks were moved forward (a jump
// of story time that no one waited through).
package timeline

import (
	"sort"
	"sync"
	"time"
)

// Entry is one moment of the story.
type Entry struct {
	At    float64 // story seconds since the story began
	Tier  string  // who acted: phone, R1/api, psp, R2/worker-1
	Event string
	// Repeated names what was sent or done again here; empty when nothing was.
	Repeated string
	// Absorbed names the guard that made the repeat harmless.
	Absorbed string
	seq      int
}

// Repeat reports whether the entry is a repeat.
func (e Entry) Repeat() bool { return e.Repeated != "" }

// Fact is one line of the story's end state: a name and what was found.
type Fact struct {
	Name, Value string
	OK          bool // the value is the one the story requires
}

type jump struct {
	at    time.Time
	story float64
}

// Timeline is one story. The zero value is not usable; call New.
type Timeline struct {
	Title string
	Seed  int64
	// Scale is the real duration of one story second.
	Scale time.Duration

	mu      sync.Mutex
	start   time.Time
	jumps   []jump
	entries []Entry
	facts   []Fact
	notes   []string
	now     func() time.Time
}

// New starts a timeline whose story second 0 is start.
func New(title string, seed int64, scale time.Duration, start time.Time) *Timeline {
	if scale <= 0 {
		scale = time.Second
	}
	return &Timeline{Title: title, Seed: seed, Scale: scale, start: start, now: time.Now}
}

// SetClock replaces the clock Mark reads (tests).
func (t *Timeline) SetClock(now func() time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.now = now
}

// Jump says the tiers' clocks moved story seconds forward at real time at:
// everything after at is that much later in the story.
func (t *Timeline) Jump(at time.Time, story float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.jumps = append(t.jumps, jump{at, story})
}

// StoryAt converts a real time to story seconds.
func (t *Timeline) StoryAt(at time.Time) float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.storyLocked(at)
}

func (t *Timeline) storyLocked(at time.Time) float64 {
	s := float64(at.Sub(t.start)) / float64(t.Scale)
	for _, j := range t.jumps {
		if !at.Before(j.at) {
			s += j.story
		}
	}
	return s
}

// Now is the current story second.
func (t *Timeline) Now() float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.storyLocked(t.now())
}

// Mark records an event that happens now.
func (t *Timeline) Mark(tier, event string) { t.add(t.nowReal(), tier, event, "", "") }

// MarkAt records an event that happened at real time at (read afterwards
// from a tier's own record, say).
func (t *Timeline) MarkAt(at time.Time, tier, event string) { t.add(at, tier, event, "", "") }

// Repeat records, now, a repeat and the guard that absorbed it.
func (t *Timeline) Repeat(tier, event, repeated, absorbed string) {
	t.add(t.nowReal(), tier, event, repeated, absorbed)
}

// RepeatAt is Repeat at real time at.
func (t *Timeline) RepeatAt(at time.Time, tier, event, repeated, absorbed string) {
	t.add(at, tier, event, repeated, absorbed)
}

func (t *Timeline) nowReal() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.now()
}

func (t *Timeline) add(at time.Time, tier, event, repeated, absorbed string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.entries = append(t.entries, Entry{At: t.storyLocked(at), Tier: tier, Event: event, Repeated: repeated,
		Absorbed: absorbed, seq: len(t.entries)})
}

// Fact records one line of the end state.
func (t *Timeline) Fact(name, value string, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.facts = append(t.facts, Fact{name, value, ok})
}

// Entries are the events in story order (ties in the order recorded).
func (t *Timeline) Entries() []Entry {
	t.mu.Lock()
	out := append([]Entry(nil), t.entries...)
	t.mu.Unlock()
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].At != out[j].At {
			return out[i].At < out[j].At
		}
		return out[i].seq < out[j].seq
	})
	return out
}

// Repeats are the entries that repeat something, in story order.
func (t *Timeline) Repeats() []Entry {
	var out []Entry
	for _, e := range t.Entries() {
		if e.Repeat() {
			out = append(out, e)
		}
	}
	return out
}

// Facts are the end-state lines, in the order recorded.
func (t *Timeline) Facts() []Fact {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Fact(nil), t.facts...)
}

// Note adds a line printed under the heading: how to read this timeline.
func (t *Timeline) Note(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.notes = append(t.notes, s)
}

// Notes are the lines added with Note.
func (t *Timeline) Notes() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.notes...)
}
