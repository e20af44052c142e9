package core

import (
	"errors"
	"reflect"
	"strconv"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// Every op read back from disk is deeply equal to the op added, whether the
// log keeps it in EffectOp's compact form or as JSON: a zero amount, an
// empty metadata map and no metadata, an op of another shape.
func TestGroundTruthReadsBackEveryOpAsAdded(t *testing.T) {
	s := &spill.Store{}
	defer s.Close()
	g := NewGroundTruthOn(s, nil, nil)
	var want []history.Op
	for i := range 3*spill.ChunkLen + 7 {
		id := strconv.Itoa(i)
		var op history.Op
		switch i % 5 {
		case 0:
			op = EffectOp(history.OpCharge, "k"+id, 1000, map[string]string{"intent": "/pay:" + id, "payment_id": "pay_" + id})
		case 1:
			op = EffectOp(history.OpRefund, "k"+id, 0, map[string]string{})
		case 2:
			op = EffectOp(history.OpCharge, "k"+id, int64(i), nil)
		case 3:
			op = EffectOp(history.OpCharge, "k"+id, 5, map[string]string{"payment_id": "pay_" + id})
			op.Output.Shown = history.Int(0) // not EffectOp's shape: kept as JSON
		case 4:
			op = history.Op{Process: "psp", Op: history.OpRefund, Call: int64(i), Input: history.Input{PSPKey: "k" + id}}
		}
		if compact := logged(op).Effect != nil; compact != (i%5 < 3) {
			t.Fatalf("op %d (case %d) kept compact: %v", i, i%5, compact)
		}
		want = append(want, op)
		g.Add(op)
	}
	if got := g.Ops(""); !reflect.DeepEqual(got, want) {
		t.Fatalf("Ops(\"\") differs from the ops added (%d vs %d)", len(got), len(want))
	}
	var charges []history.Op
	for _, op := range want {
		if op.Op == history.OpCharge {
			charges = append(charges, op)
		}
	}
	if got := g.Ops(history.OpCharge); !reflect.DeepEqual(got, charges) || g.Count(history.OpCharge) != len(charges) {
		t.Fatalf("Ops(charge): %d ops, Count %d, want %d equal", len(got), g.Count(history.OpCharge), len(charges))
	}
	if err := g.ReadErr(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := g.OpsErr(""); !errors.Is(err, spill.ErrClosed) || len(got) != 7 {
		t.Fatalf("OpsErr after Close: %d ops, %v; want the 7 in memory and ErrClosed", len(got), err)
	}
	if err := g.ReadErr(); err != nil {
		t.Fatalf("OpsErr remembered its error: %v", err)
	}
	if g.Ops(history.OpRefund); g.ReadErr() == nil || g.ReadErr() != nil {
		t.Fatal("Ops after Close: ReadErr must say so once, then forget")
	}
}
