package streamjob

import (
	"container/heap"

	"github.com/idemcheck/idemcheck/targets/connector"
)

// Key is one sink row: a merchant's total of one day.
type Key struct {
	Merchant string `json:"merchant"`
	Day      string `json:"day"`
}

// Verdict is what the job did with one change.
type Verdict int

// Verdicts.
const (
	Ignored   Verdict = iota // not a payment this version counts
	Counted                  // added to its key's total
	Duplicate                // its event id is in the seen set
	Late                     // event time + horizon <= the watermark bound
)

func (v Verdict) String() string {
	return [...]string{"ignored", "counted", "duplicate", "late"}[v]
}

// Seen is the dedup memory: in checkpointed state (the reference) or in an
// external cache (the mutant seen-ids-external).
type Seen interface {
	Has(id string) bool
	Add(id string, eventTime int64)
}

// State is the job's operator state. Totals, the seen ids with their
// event-time timers and the floor are checkpointed; Watermark is not (a
// stream processor does not checkpoint watermarks; docs/SCENARIOS.md#F4).
type State struct {
	Totals map[Key]int64
	Seen   map[string]int64 // event id -> event time (ns)
	Floor  int64            // the watermark saved at the last checkpoint
	// Watermark is the newest event time read since this process started.
	Watermark int64
	timers    timerHeap
}

// NewState is an empty state.
func NewState() *State { return &State{Totals: map[Key]int64{}, Seen: map[string]int64{}} }

// Has implements Seen over the checkpointed set.
func (s *State) Has(id string) bool { _, ok := s.Seen[id]; return ok }

// Add implements Seen: the id expires when the watermark reaches its event
// time + horizon (its timer).
func (s *State) Add(id string, eventTime int64) { s.Seen[id] = eventTime }

// Rules are the knobs of Apply.
type Rules struct {
	Version int   // 1 counts declined payments too (the bug F1's restore fixes); 2 only succeeded ones
	Horizon int64 // acceptance horizon (ns of event time)
	// NoFloor drops the saved floor from the late bound (mutant).
	NoFloor bool
}

// Counts reports whether a change to state counts under version.
func Counts(version int, state string) bool {
	if version <= 1 {
		return state == "SUCCEEDED" || state == "FAILED"
	}
	return state == "SUCCEEDED"
}

// Bound is the late bound: a copy with event time + horizon <= Bound is late.
func (s *State) Bound(r Rules) int64 {
	if r.NoFloor || s.Watermark > s.Floor {
		return s.Watermark
	}
	return s.Floor
}

// Apply processes one topic record against seen (s itself in the
// reference). Late is judged before dedup with the same boundary the timers
// use, so every accepted copy still finds its original in seen.
func (s *State) Apply(e connector.Event, r Rules, seen Seen) (Verdict, Key) {
	defer s.advance(e.EventTime, r.Horizon)
	if e.Kind != connector.KindChange || !Counts(r.Version, e.State) {
		return Ignored, Key{}
	}
	k := Key{e.Merchant, e.Day}
	if e.EventTime+r.Horizon <= s.Bound(r) {
		return Late, k
	}
	if seen.Has(e.EventID) {
		return Duplicate, k
	}
	seen.Add(e.EventID, e.EventTime)
	if seen == Seen(s) {
		heap.Push(&s.timers, timer{at: e.EventTime + r.Horizon, id: e.EventID, t: e.EventTime})
	}
	s.Totals[k] += e.Amount
	return Counted, k
}

// advance moves the watermark and fires the timers it passed.
func (s *State) advance(t, horizon int64) {
	if t > s.Watermark {
		s.Watermark = t
	}
	for len(s.timers) > 0 && s.timers[0].at <= s.Watermark {
		tm := heap.Pop(&s.timers).(timer)
		if s.Seen[tm.id] == tm.t {
			delete(s.Seen, tm.id)
		}
	}
}

// Restore rebuilds timers after loading Seen from a checkpoint.
func (s *State) Restore(horizon int64) {
	s.timers = s.timers[:0]
	for id, t := range s.Seen {
		s.timers = append(s.timers, timer{at: t + horizon, id: id, t: t})
	}
	heap.Init(&s.timers)
}

type timer struct {
	at, t int64
	id    string
}

type timerHeap []timer

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].at < h[j].at }
func (h timerHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)        { *h = append(*h, x.(timer)) }
func (h *timerHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
