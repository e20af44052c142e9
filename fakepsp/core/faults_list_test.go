package core

import (
	"strconv"
	"testing"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// TestFaultsListReadsEachUndoneSpecFromItsOwnPage: List reads an undone
// fault's spec from the page that holds it, even when the first fault of
// that page is still armed (its spec in memory, no page read for it): the
// page read for an earlier fault is another page's specs.
func TestFaultsListReadsEachUndoneSpecFromItsOwnPage(t *testing.T) {
	for _, disk := range []*spill.Store{nil, {Owner: "faults"}} {
		fs := NewFaults(func(bool) {}, disk)
		n := 2*spill.ChunkLen + 2
		for i := range n {
			f := fs.Arm(FaultSpec{Kind: LoseReply, Match: Match{PSPKey: "k" + strconv.Itoa(i)}})
			if i%spill.ChunkLen != 0 {
				f.Undo() // each page's first fault stays armed
			}
		}
		l := mustList(t, fs)
		if len(l) != n {
			t.Fatalf("List has %d faults, want %d", len(l), n)
		}
		for i, f := range l {
			if got, want := f.Info().Match.PSPKey, "k"+strconv.Itoa(i); got != want {
				t.Errorf("store %v: List()[%d] (%s) has key %q, want %q", disk != nil, i, f.ID(), got, want)
			}
		}
		if disk != nil {
			disk.Close()
		}
	}
}
