package checker

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
)

// The passes that run on all cores (inChunks, WriteJSONL's blocks) must
// give what one core gives, violations and their order included. The
// histories are big enough to be split, hold every op kind, and are legal,
// broken in several ways of the older kinds, and broken by every mutation
// at once (so every violation kind is reported by both).
func TestOnAllCoresAsOnOne(t *testing.T) {
	h, _ := history.Generate(history.GenOptions{Seed: 9, Ops: 40_000, UnknownRate: 0.2})
	var bad history.History
	for i, op := range h {
		bad = append(bad, op)
		switch {
		case op.Op == history.OpCharge && i%97 == 0:
			op.Input.PSPKey += "-again" // a second charge of the intent
			bad = append(bad, op)
		case op.Op == history.OpCredit && i%89 == 0:
			bad = append(bad, op) // a double credit
		case op.Op == history.OpCreate && op.Output != nil && i%101 == 0:
			out := *op.Output
			out.PaymentID = "pay_0" // another caller's payment
			op.Output = &out
			bad = append(bad, op)
		}
	}
	every := append(history.History(nil), h...)
	for _, m := range mutations() {
		every = m.mutate(t, every)
	}
	for _, c := range []struct {
		name  string
		h     history.History
		kinds []string // kinds the report must have (it may have more)
	}{
		{"legal", h, nil},
		{"older kinds broken", bad, []string{KindDoubleCharge, KindDoubleCredit, KindInconsistentAnswer}},
		{"every mutation", every, Kinds},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := func(procs int) (string, []byte, *Result) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				var b bytes.Buffer
				if err := history.WriteJSONL(&b, c.h); err != nil {
					t.Fatal(err)
				}
				res := Check(c.h, CheckOptions{})
				return res.Text(), b.Bytes(), res
			}
			oneText, oneFile, res := run(1)
			allText, allFile, _ := run(4)
			if oneText != allText {
				t.Fatalf("reports differ:\none core:\n%s\nall cores:\n%s", oneText, allText)
			}
			if !bytes.Equal(oneFile, allFile) {
				t.Fatal("files differ")
			}
			if !res.Decided() {
				t.Fatalf("undecided: %v", res.Unknown)
			}
			got := map[string]bool{}
			for _, v := range res.Violations {
				got[v.Kind] = true
			}
			if c.kinds == nil && len(got) > 0 {
				t.Fatalf("a legal history has violations:\n%s", oneText)
			}
			for _, k := range c.kinds {
				if !got[k] {
					t.Fatalf("kinds %v, want %v among them\n%s", sortedKeys(got), c.kinds, oneText)
				}
			}
		})
	}
}
