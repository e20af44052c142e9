package history

import "testing"

// TestForgetDropsOnlyWhatEndedBefore: a judged round's ops go (answered or
// unknown), an op answered after the cut stays, and a forgotten process
// leaves nothing behind in the recorder's per-process maps.
func TestForgetDropsOnlyWhatEndedBefore(t *testing.T) {
	r := NewRecorder()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(r.Record(Op{Process: "c1", Op: OpCharge, Intent: "i1", Call: 10, Return: Int64(20), Input: Input{PSPKey: "i1", Amount: Int64(100)}, Output: &Output{ChargeID: "ch"}}))
	must(r.Record(Op{Process: "c2", Op: OpCharge, Intent: "i2", Call: 30, Input: Input{PSPKey: "i2", Amount: Int64(100)}})) // unknown outcome
	must(r.Record(Op{Process: "c3", Op: OpCharge, Intent: "i3", Call: 40, Return: Int64(60), Input: Input{PSPKey: "i3", Amount: Int64(100)}, Output: &Output{ChargeID: "ch"}}))
	r.Forget(50)
	h := r.History()
	if len(h) != 1 || h[0].Intent != "i3" {
		t.Fatalf("after Forget(50): %v, want only i3's op (it returned at 60)", h)
	}
	if len(r.spans) != 1 || len(r.last) != 0 {
		t.Fatalf("spans %v last %v: want c3's span only and no return times (none was Begin/End)", r.spans, r.last)
	}
	// c1 may record again: nothing of its old op is left to overlap.
	must(r.Record(Op{Process: "c1", Op: OpCharge, Intent: "i4", Call: 70, Return: Int64(80), Input: Input{PSPKey: "i4", Amount: Int64(100)}, Output: &Output{ChargeID: "ch"}}))
	if got := len(r.History()); got != 2 {
		t.Fatalf("%d ops, want 2", got)
	}
}
