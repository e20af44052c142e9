package core

import (
	"fmt"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// TestGroundTruthOpsFromReadsOnlyWhatWasAddedSince: OpsFrom from the
// length a previous read returned gives exactly the ops of the kind added
// since, across the log's chunks, charges and refunds interleaved, as the
// judge's round view reads them.
func TestGroundTruthOpsFromReadsOnlyWhatWasAddedSince(t *testing.T) {
	g := NewGroundTruth(nil, nil)
	pos, seen := 0, 0
	for round := range 4 {
		// More than a chunk a round, so reads start mid-chunk and span several.
		for i := range spill.ChunkLen + 7 {
			kind := "charge"
			if i%5 == 0 {
				kind = "refund"
			}
			g.Add(EffectOp(kind, fmt.Sprintf("k-%d-%d", round, i), int64(i), nil))
		}
		ops, next, err := g.OpsFrom("charge", pos)
		if err != nil {
			t.Fatal(err)
		}
		if next != g.Count("") {
			t.Fatalf("round %d: next %d, want the log's length %d", round, next, g.Count(""))
		}
		all := g.Ops("charge")
		if len(ops) != len(all)-seen {
			t.Fatalf("round %d: %d charges since %d, want %d", round, len(ops), pos, len(all)-seen)
		}
		for i, op := range ops {
			if op.Input.PSPKey != all[seen+i].Input.PSPKey || op.Op != "charge" {
				t.Fatalf("round %d: charge %d is %s %q, want %q", round, i, op.Op, op.Input.PSPKey, all[seen+i].Input.PSPKey)
			}
		}
		pos, seen = next, len(all)
	}
	if ops, next, err := g.OpsFrom("charge", pos); err != nil || len(ops) != 0 || next != pos {
		t.Fatalf("nothing added: %d ops, next %d (want %d), err %v", len(ops), next, pos, err)
	}
}

// TestGroundTruthOpsFromStopsAtTheEndWhenAChunkIsLost: OpsFrom returns
// the ops from pos to the log's length when it began, and that length, to
// read from next time; ops added meanwhile (opsFrom's end is that length)
// are the next read's, even when a chunk before them cannot be read: a
// reader that took them now and again next time would count a charge
// twice.
func TestGroundTruthOpsFromStopsAtTheEndWhenAChunkIsLost(t *testing.T) {
	for _, pos := range []int{0, 3, spill.ChunkLen, spill.ChunkLen + 1} {
		s := &spill.Store{}
		g := NewGroundTruthOn(s, nil, nil)
		add := func(i int) {
			op := EffectOp(history.OpCharge, "k", 1000, nil)
			op.Call = int64(i)
			g.Add(op)
		}
		end := spill.ChunkLen + 2
		for i := range end {
			add(i)
		}
		_ = s.Close() // the first chunk is lost
		for i := end; i < end+3; i++ {
			add(i) // after the read began
		}
		ops, next, err := g.opsFrom(history.OpCharge, pos, end)
		if lost := pos < spill.ChunkLen; (err != nil) != lost {
			t.Fatalf("from %d: error %v, want one only when the lost chunk is read", pos, err)
		}
		if next != end {
			t.Fatalf("from %d: next %d, want %d", pos, next, end)
		}
		for _, op := range ops {
			if op.Call < int64(pos) || op.Call >= int64(end) {
				t.Fatalf("from %d to %d: op %d returned (%d ops)", pos, end, op.Call, len(ops))
			}
		}
		if len(ops) != end-max(pos, spill.ChunkLen) {
			t.Fatalf("from %d: %d ops, want the %d of the tail before %d", pos, len(ops), end-max(pos, spill.ChunkLen), end)
		}
	}
}
