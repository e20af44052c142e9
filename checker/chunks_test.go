package checker

import (
	"bytes"
	"runtime"
	"testing"
)

// The passes that run on all cores (inChunks, WriteJSONL's blocks) must
// give what one core gives, violations and their order included. The
// history is big enough to be split and broken in several ways.
func TestOnAllCoresAsOnOne(t *testing.T) {
	h, _ := Generate(GenOptions{Seed: 9, Ops: 40_000, UnknownRate: 0.2})
	var bad History
	for i, op := range h {
		bad = append(bad, op)
		switch {
		case op.Op == OpCharge && i%97 == 0:
			op.Input.PSPKey += "-again" // a second charge of the intent
			bad = append(bad, op)
		case op.Op == OpCredit && i%89 == 0:
			bad = append(bad, op) // a double credit
		case op.Op == OpCreate && op.Output != nil && i%101 == 0:
			out := *op.Output
			out.PaymentID = "pay_0" // another caller's payment
			op.Output = &out
			bad = append(bad, op)
		}
	}
	run := func(procs int) (string, []byte) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		var b bytes.Buffer
		if err := WriteJSONL(&b, bad); err != nil {
			t.Fatal(err)
		}
		return Check(bad, CheckOptions{}).Text(), b.Bytes()
	}
	oneText, oneFile := run(1)
	allText, allFile := run(4)
	if oneText != allText {
		t.Fatalf("reports differ:\none core:\n%s\nall cores:\n%s", oneText, allText)
	}
	if !bytes.Equal(oneFile, allFile) {
		t.Fatal("files differ")
	}
	if res := Check(bad, CheckOptions{}); res.OK() {
		t.Fatal("the broken history passed")
	}
}
