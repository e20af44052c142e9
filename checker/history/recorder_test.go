package history

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestRecorderConcurrent(t *testing.T) {
	r := NewRecorder()
	var wg sync.WaitGroup
	const clients, each = 8, 50
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			proc := fmt.Sprintf("phone-%d", c)
			for k := 0; k < each; k++ {
				p := r.Begin(proc, OpCreate, fmt.Sprintf("payments:u%d:K%d", c, k), Input{Fingerprint: "f", Amount: Int64(1), Currency: "USD"})
				var err error
				if k%10 == 0 {
					err = p.Unknown()
				} else {
					err = p.End(Output{Outcome: OutcomeFailed})
				}
				if err != nil {
					t.Error(err)
				}
			}
		}(c)
	}
	wg.Wait()
	h := r.History()
	if len(h) != clients*each || len(r.Errors()) != 0 {
		t.Fatalf("recorded %d ops, %d errors; want %d, 0", len(h), len(r.Errors()), clients*each)
	}
	unknown := 0
	for _, op := range h {
		if op.Return == nil {
			unknown++
			if op.Output != nil {
				t.Fatal("unknown op with output")
			}
		} else if *op.Return < op.Call {
			t.Fatal("return before call")
		}
	}
	if unknown != clients*each/10 {
		t.Fatalf("unknown = %d, want %d", unknown, clients*each/10)
	}
	var buf bytes.Buffer
	if err := r.WriteJSONL(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSONL(&buf)
	if err != nil || len(back) != len(h) {
		t.Fatalf("read back %d ops, err %v", len(back), err)
	}
}

func TestRecorderRefusesOverlapInOneProcess(t *testing.T) {
	r := NewRecorder()
	in := Input{Fingerprint: "f", Amount: Int64(1), Currency: "USD"}
	p := r.Begin("phone-1", OpCreate, "i", in)
	q := r.Begin("phone-1", OpResolve, "i", Input{}) // phone-1 is busy
	if len(r.Errors()) != 1 {
		t.Fatalf("errors = %v, want one refusal", r.Errors())
	}
	if err := q.End(Output{Outcome: OutcomeVoid}); err == nil {
		t.Fatal("a refused op ended without error")
	}
	if err := p.End(Output{Outcome: OutcomeFailed}); err != nil {
		t.Fatal(err)
	}
	if err := p.End(Output{Outcome: OutcomeFailed}); err == nil {
		t.Fatal("ended twice without error")
	}
	if n := len(r.History()); n != 1 {
		t.Fatalf("history has %d ops, want 1", n)
	}
	bad := r.Begin("phone-2", OpCreate, "i", Input{Fingerprint: "f", Amount: Int64(1), Currency: "USD"})
	if err := bad.End(Output{}); err == nil || !strings.Contains(err.Error(), `field "output.outcome": missing; recorded with an unknown outcome`) {
		t.Fatalf("End without outcome: err = %v", err)
	}
	if h := r.History(); len(h) != 2 || h[1].Return != nil || h[1].Output != nil {
		t.Fatalf("history = %+v, want the bad answer kept as unknown", h)
	}
	worse := r.Begin("phone-3", OpCreate, "i", Input{})
	if err := worse.End(Output{Outcome: OutcomeFailed}); err == nil || !strings.Contains(err.Error(), `field "input.fingerprint": missing`) {
		t.Fatalf("End with bad input: err = %v", err)
	}
	if n := len(r.History()); n != 2 {
		t.Fatalf("history has %d ops, want 2", n)
	}
}

func TestRecorderRecord(t *testing.T) {
	r := NewRecorder()
	charge := func(proc string, call, ret int64) Op {
		return Op{Process: proc, Op: OpCharge, Call: call, Return: Int64(ret), PaymentID: "pay_7",
			Input: Input{PSPKey: "k", Amount: Int64(1)}, Output: &Output{ChargeID: "c"}}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	mustNot := func(err error, why string) {
		t.Helper()
		if err == nil {
			t.Fatal("accepted " + why)
		}
	}
	must(r.Record(charge("psp", 10, 20)))
	must(r.Record(charge("psp", 30, 40)))
	must(r.Record(charge("psp", 0, 5)))     // out of order is fine
	must(r.Record(charge("psp", 20, 25)))   // sharing an instant is not overlapping
	must(r.Record(charge("psp-2", 12, 18))) // another process
	mustNot(r.Record(charge("psp", 15, 16)), "an op inside another of its process")
	mustNot(r.Record(charge("psp", 35, 50)), "an op overlapping a later one")
	mustNot(r.Record(charge("psp", 3, 12)), "an op overlapping two")
	mustNot(r.Record(charge("psp", 60, 59)), "a return before the call")
	mustNot(r.Record(Op{Process: "x", Op: "teleport"}), "an unknown op")
	mustNot(r.Record(Op{Op: OpCharge}), "an op without process")
	p := r.Begin("phone-1", OpCreate, "i", Input{Fingerprint: "f", Amount: Int64(1), Currency: "USD"})
	mustNot(r.Record(Op{Process: "phone-1", Op: OpResolve, Intent: "i", Call: Now(), Return: Int64(Now() + 1), Output: &Output{Outcome: OutcomeVoid}}), "an op of a busy process")
	mustNot(r.Record(Op{Process: "psp", Op: OpCharge, Call: 100, Return: Int64(101), PaymentID: "p", Input: Input{PSPKey: "k", Amount: Int64(1)}}), "a charge without charge_id")
	must(p.Unknown())
	if n := len(r.History()); n != 6 {
		t.Fatalf("history has %d ops, want 6", n)
	}
}

// TestRefusedSinceAndForIntents: a judge learns of the refusals of its own
// intents' ops since it began, not of older ones nor of others'; Forget drops
// them with the ops of their time, and past maxRefusals the recorder keeps a
// count, which every judge of their time hears of.
func TestRefusedSinceAndForIntents(t *testing.T) {
	r := NewRecorder()
	refuse := func(intent string) {
		t.Helper()
		// No fingerprint: the strict reader would refuse the op.
		if err := r.Begin("p-"+intent, OpCreate, intent, Input{Amount: Int64(1)}).Unknown(); err == nil {
			t.Fatalf("an op without a fingerprint was recorded")
		}
	}
	refuse("old")
	mark := Now() + 1
	for Now() < mark {
	}
	if n, first := r.Refused(mark, nil); n != 0 || first != nil {
		t.Fatalf("since the mark: %d refusals (%v), want none", n, first)
	}
	refuse("mine")
	refuse("theirs")
	refuse("mine")
	mine := func(in string) bool { return in == "mine" }
	n, first := r.Refused(mark, mine)
	if n != 2 || first == nil || !strings.Contains(first.Error(), `field "input.fingerprint": missing`) {
		t.Fatalf("mine since the mark: %d (%v), want 2 naming the missing fingerprint", n, first)
	}
	if n, _ := r.Refused(0, nil); n != 4 || len(r.Errors()) != 4 {
		t.Fatalf("all: %d refusals, %d errors; want 4", n, len(r.Errors()))
	}
	r.Forget(Now() + 1)
	if n, _ := r.Refused(0, nil); n != 0 || len(r.Errors()) != 0 {
		t.Fatalf("after Forget: %d refusals, %d errors; want none", n, len(r.Errors()))
	}
	for range maxRefusals + 5 {
		refuse("many")
	}
	if len(r.refused) != maxRefusals || len(r.Errors()) != maxRefusals {
		t.Fatalf("%d refusals kept, want at most %d", len(r.refused), maxRefusals)
	}
	if n, first := r.Refused(0, mine); n != 5 || first == nil || !strings.Contains(first.Error(), "beyond") {
		t.Fatalf("mine with refusals not kept: %d (%v), want the 5 not kept counted", n, first)
	}
	r.Forget(Now() + 1)
	if n, _ := r.Refused(0, nil); n != 0 {
		t.Fatalf("after Forget: %d refusals, want none", n)
	}
}

// TestRefusedLeavesOutOpsKeptAsUnknown: an answer the reader would refuse
// (no outcome) keeps its op in the history with an unknown outcome, the
// weaker claim; Errors says so, and Refused, which tells a judge what its
// history lacks, does not count it.
func TestRefusedLeavesOutOpsKeptAsUnknown(t *testing.T) {
	r := NewRecorder()
	p := r.Begin("p", OpCreate, "i", Input{Fingerprint: "f", Amount: Int64(1), Currency: "USD"})
	if err := p.End(Output{}); err == nil {
		t.Fatal("an answer with no outcome was recorded as is")
	}
	if n, first := r.Refused(0, nil); n != 0 || first != nil {
		t.Fatalf("Refused %d (%v), want none: the op is in the history", n, first)
	}
	if h := r.History(); len(h) != 1 || h[0].Return != nil || len(r.Errors()) != 1 {
		t.Fatalf("history %+v, errors %v: want the op with an unknown outcome and one error", h, r.Errors())
	}
}
