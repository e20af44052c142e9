package scenario

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"

	"github.com/idemcheck/idemcheck/internal/liveheap"
	"github.com/idemcheck/idemcheck/internal/testseed"
)

// TestRefSet: members are found whole (has) and inside a text (in), ""
// is never one, repeats are kept once, and a set made from another is the
// same set grown.
func TestRefSet(t *testing.T) {
	var empty refSet
	a := empty.with([]string{"ch_1", "", "key-22", "ch_1"})
	defer a.close()
	if a.size() != 2 {
		t.Fatalf("size %d, want 2 (\"\" is no member, a repeat is one)", a.size())
	}
	b := a.with([]string{"ch_333"})
	if a.size() != 3 || b.size() != 3 || empty.size() != 0 {
		t.Fatalf("sizes %d, %d and %d, want 3, 3 (one set, grown) and 0", a.size(), b.size(), empty.size())
	}
	for _, c := range []struct {
		set    refSet
		x      string
		has    bool
		inText string
		in     bool
	}{
		{a, "ch_1", true, `{"latest_charge":"ch_1"}`, true},
		{a, "key-22", true, "under key-22 it went", true},
		{a, "ch_333", true, `{"latest_charge":"ch_333"}`, true},
		{a, "ch_33", false, `{"latest_charge":"ch_10"}`, true}, // ch_10 holds ch_1
		{b, "ch_3", false, "ch_33", false},
		{a, "", false, "", false},
		{empty, "ch_1", false, "ch_1", false},
	} {
		if got := c.set.has(c.x); got != c.has {
			t.Errorf("has(%q) = %v, want %v", c.x, got, c.has)
		}
		if got := c.set.in(c.inText); got != c.in {
			t.Errorf("in(%q) = %v, want %v", c.inText, got, c.in)
		}
	}
}

// TestRefSetNeverForgetsAndStaysSmall: over an hour's worth of members
// and more, every member is found, whole and in a text; a stranger is
// answered by the filter nearly always, so the disk is read a handful of
// times; the heap the set holds does not grow with its members; and once
// its file is gone, the set still never answers no for a member.
func TestRefSetNeverForgetsAndStaysSmall(t *testing.T) {
	seed := testseed.Seed(t)
	// Member i is made again when asked for, so the test keeps none.
	member := func(i int) string {
		return "pi_" + strconv.FormatUint(rand.New(rand.NewPCG(seed, uint64(i))).Uint64(), 36)
	}
	var s refSet
	add := func(from, to int) {
		batch := make([]string, 0, 240)
		for i := from; i < to; i++ {
			if batch = append(batch, member(i)); len(batch) == cap(batch) || i == to-1 {
				s = s.with(batch)
				batch = batch[:0]
			}
		}
	}
	const n = 20_000
	add(0, n/2)
	defer s.close()
	before := liveheap.Bytes()
	add(n/2, n)
	after := liveheap.Bytes()
	runtime.KeepAlive(s)
	perMember := float64(int64(after)-int64(before)) / (n / 2)
	t.Logf("seed %d: heap %d -> %d over %d more members, %.2f bytes a member", seed, before, after, n/2, perMember)
	// Its filter is made at the first with; the lengths are a few. Sorted
	// hashes in memory, as before, were 8 a member and more.
	if perMember > 2 {
		t.Errorf("the set kept %.2f bytes a member, want its fixed filter only (at most 2)", perMember)
	}
	if s.size() != n {
		t.Fatalf("size %d, want %d", s.size(), n)
	}
	for i := range n {
		if m := member(i); !s.has(m) || !s.in(`{"key":"`+m+`"}`) {
			t.Fatalf("seed %d: member %d (%q) not found", seed, i, m)
		}
	}
	s.r.reads = 0
	strangers := 0
	for i := range 100_000 {
		if s.has(member(n + i)) {
			strangers++
		}
	}
	t.Logf("%d strangers of 100,000 were members; %d disk reads", strangers, s.r.reads)
	// 20,000 members at five bits each in 512 Ki bits: about 16 maybes in
	// 100,000 strangers, each settled by the disk.
	if strangers != 0 || s.r.reads > 100 {
		t.Errorf("seed %d: %d strangers found, %d disk reads; want none found, at most 100 reads", seed, strangers, s.r.reads)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		if !s.has(member(i)) {
			t.Fatalf("after close, member %d not found: a no the view would trust", i)
		}
	}
}
