package core

import (
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/internal/spill"
)

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
