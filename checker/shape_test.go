package checker

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
)

// Hand-made histories of SCENARIOS.md C2 and C3. Times are small integers on
// the file's one clock.

func ret(t int64) *int64 { return &t }

func write(proc, device string, counter int64, value string, call int64, r *int64, outcome string) history.Op {
	op := history.Op{Process: proc, Op: history.OpWrite, Call: call, Return: r,
		Input: history.Input{ShapeInput: history.ShapeInput{Device: device, Item: "u1/p1", Value: value, Counter: history.Int64(counter)}}}
	if r != nil {
		op.Output = &history.Output{Outcome: outcome}
	}
	return op
}

func state(call int64, value string) history.Op {
	return history.Op{Process: "reader", Op: history.OpState, Call: call, Return: ret(call + 1),
		Input: history.Input{ShapeInput: history.ShapeInput{Item: "u1/p1"}}, Output: &history.Output{ShapeOutput: history.ShapeOutput{Value: value}}}
}

// branchV is C2's client side: LIKE 41 whose reply was lost, UNLIKE 42
// acknowledged, and the resent LIKE 41 sent before the UNLIKE but answered
// after it (it arrived last).
func branchV() history.History {
	return history.History{
		write("D1-cell", "D1", 41, "liked", 10, nil, ""),
		write("D1-cell", "D1", 41, "liked", 20, ret(50), history.OutcomeOK),
		write("D1-wifi", "D1", 42, "unliked", 30, ret(40), history.OutcomeOK),
	}
}

func TestC2HoldsUnliked(t *testing.T) {
	r := Check(append(branchV(), state(60, "unliked")), CheckOptions{})
	if !r.OK() || !r.Decided() {
		t.Fatalf("want OK and decided:\n%s", r.Text())
	}
	if r.Partitions != 1 {
		t.Fatalf("partitions = %d, want 1 (item u1/p1)", r.Partitions)
	}
}

func TestC2CaughtLiked(t *testing.T) {
	r := Check(append(branchV(), state(60, "liked")), CheckOptions{})
	if got := kindsOf(r.Violations); !reflect.DeepEqual(got, []string{KindStaleWriteApplied}) {
		t.Fatalf("kinds = %v, want [stale-write-applied]\n%s", got, r.Text())
	}
	v := r.Violations[0]
	if !strings.Contains(v.Message, `counter 42 = "unliked"`) || !strings.Contains(v.Message, "device D1 counter 41") {
		t.Fatalf("message does not name the latest and the stale write: %s", v.Message)
	}
	// The read, UNLIKE 42 and both LIKE 41 copies.
	if len(v.Ops) != 4 || v.Ops[len(v.Ops)-1].Op != history.OpState {
		t.Fatalf("ops = %+v", v.Ops)
	}
}

func TestC2PhoneClockIsNotTheOrder(t *testing.T) {
	// The clock stepped back an hour between the two taps: UNLIKE carries an
	// earlier phone time. The judge orders by counter, so liked is still stale.
	h := branchV()
	for i := range h {
		pt := int64(3_600_000)
		if *h[i].Input.Counter == 42 {
			pt = 5
		}
		h[i].Input.PhoneTime = history.Int64(pt)
	}
	if r := Check(append(h, state(60, "liked")), CheckOptions{}); len(r.ByKind(KindStaleWriteApplied)) != 1 {
		t.Fatalf("want one stale-write-applied:\n%s", r.Text())
	}
	if r := Check(append(h, state(60, "unliked")), CheckOptions{}); !r.OK() {
		t.Fatalf("want OK:\n%s", r.Text())
	}
}

func TestC2UnknownNewerWriteAllowsEither(t *testing.T) {
	h := history.History{
		write("D1", "D1", 41, "liked", 10, ret(20), history.OutcomeOK),
		write("D1", "D1", 42, "unliked", 30, nil, ""),
	}
	for _, v := range []string{"liked", "unliked"} {
		if r := Check(append(h, state(60, v)), CheckOptions{}); !r.OK() || !r.Decided() {
			t.Fatalf("%s: want OK and decided:\n%s", v, r.Text())
		}
	}
	// An answer of error is an unknown outcome too.
	h[1] = write("D1", "D1", 42, "unliked", 30, ret(35), history.OutcomeError)
	if r := Check(append(h, state(60, "liked")), CheckOptions{}); !r.OK() {
		t.Fatalf("error answer: want OK:\n%s", r.Text())
	}
}

func TestC2ConcurrentReadDoesNotCount(t *testing.T) {
	// UNLIKE 42 returned after the read began: the read may miss it.
	h := history.History{
		write("D1", "D1", 41, "liked", 10, ret(20), history.OutcomeOK),
		write("D1", "D1", 42, "unliked", 30, ret(70), history.OutcomeOK),
		state(60, "liked"),
	}
	if r := Check(h, CheckOptions{}); !r.OK() {
		t.Fatalf("want OK:\n%s", r.Text())
	}
}

func TestC2TwoDevicesEitherMayBeLast(t *testing.T) {
	h := history.History{
		write("D1", "D1", 41, "liked", 10, ret(20), history.OutcomeOK),
		write("D2", "D2", 7, "unliked", 12, ret(22), history.OutcomeOK),
	}
	for _, v := range []string{"liked", "unliked"} {
		if r := Check(append(h, state(60, v)), CheckOptions{}); !r.OK() {
			t.Fatalf("%s: want OK:\n%s", v, r.Text())
		}
	}
}

func TestC2Undecided(t *testing.T) {
	cases := map[string]history.History{
		"no state read at quiescence":               {write("D1", "D1", 41, "liked", 10, ret(20), history.OutcomeOK)},
		"no state read after an acknowledged write": {write("D1", "D1", 41, "liked", 10, nil, ""), state(60, "unliked")},
	}
	for why, h := range cases {
		r := Check(h, CheckOptions{})
		if !r.OK() || r.Decided() || len(r.Unknown) != 1 || r.Unknown[0].Why != why {
			t.Fatalf("%s: want OK, undecided with that reason: %+v\n%s", why, r.Unknown, r.Text())
		}
		if !strings.Contains(r.Text(), "UNDECIDED item u1/p1") || !strings.Contains(r.Text(), why) {
			t.Fatalf("text does not say why: %s", r.Text())
		}
	}
}

func move(call, r int64, from, to string) history.Op {
	return history.Op{Process: "user", Op: history.OpMove, Call: call, Return: ret(r),
		Input:  history.Input{ShapeInput: history.ShapeInput{Message: "m9", From: from, To: to}},
		Output: &history.Output{Outcome: history.OutcomeOK}}
}

func del(call, r int64) history.Op {
	return history.Op{Process: "user", Op: history.OpDelete, Call: call, Return: ret(r),
		Input: history.Input{ShapeInput: history.ShapeInput{Message: "m9"}}, Output: &history.Output{Outcome: history.OutcomeOK}}
}

func locate(call int64, folders ...string) history.Op {
	return history.Op{Process: "reader", Op: history.OpLocate, Call: call, Return: ret(call + 1),
		Input: history.Input{ShapeInput: history.ShapeInput{Message: "m9"}}, Output: &history.Output{ShapeOutput: history.ShapeOutput{Folders: history.Folders(folders...)}}}
}

func store(proc string, at int64, stored bool) history.Op {
	return history.Op{Process: proc, Op: history.OpStore, Call: at, Return: ret(at),
		Input: history.Input{ShapeInput: history.ShapeInput{Message: "m9", Offset: history.Int64(0)}}, Output: &history.Output{ShapeOutput: history.ShapeOutput{Stored: history.Bool(stored)}}}
}

// branchM is C3: the parse, the move, a redelivery, the delete, another
// redelivery, with a locate read after each step; inbox1 and final are what
// the reads after the two redeliveries found.
func branchM(stored bool, inbox1, final []string) history.History {
	return history.History{
		store("parser-1", 10, true),
		locate(20, "Inbox"),
		move(30, 40, "Inbox", "Archive"),
		locate(50, "Archive"),
		store("parser-2", 60, stored),
		locate(70, inbox1...),
		del(80, 90),
		locate(95),
		store("parser-3", 100, stored),
		locate(110, final...),
	}
}

func TestC3HoldsNothingReappears(t *testing.T) {
	r := Check(branchM(false, []string{"Archive"}, nil), CheckOptions{})
	if !r.OK() || !r.Decided() || r.Partitions != 1 {
		t.Fatalf("want OK, decided, one partition:\n%s", r.Text())
	}
}

func TestC3CaughtBackInInbox(t *testing.T) {
	r := Check(branchM(true, []string{"Archive", "Inbox"}, []string{"Inbox"}), CheckOptions{})
	vs := r.ByKind(KindEffectResurrected)
	if len(vs) != 2 || len(r.Violations) != 2 {
		t.Fatalf("want two effect-resurrected (after the move, after the delete):\n%s", r.Text())
	}
	if !strings.Contains(vs[0].Message, "in Inbox") || !strings.Contains(vs[0].Message, "moved it Inbox -> Archive") ||
		!strings.Contains(vs[0].Message, "parser-2 (offset 0)") {
		t.Fatalf("first message: %s", vs[0].Message)
	}
	if !strings.Contains(vs[1].Message, "deleted it") || !strings.Contains(vs[1].Message, "parser-3") {
		t.Fatalf("second message: %s", vs[1].Message)
	}
	for _, v := range vs {
		if v.Ops[len(v.Ops)-1].Op != history.OpLocate {
			t.Fatalf("the read is not named: %+v", v.Ops)
		}
	}
}

func TestC3UserMovesBack(t *testing.T) {
	h := history.History{
		store("parser-1", 10, true),
		move(30, 40, "Inbox", "Archive"),
		move(50, 60, "Archive", "Inbox"),
		locate(70, "Inbox"),
	}
	if r := Check(h, CheckOptions{}); !r.OK() || !r.Decided() {
		t.Fatalf("want OK and decided:\n%s", r.Text())
	}
	// An unknown move back may have happened too.
	h[2].Return, h[2].Output = nil, nil
	if r := Check(h, CheckOptions{}); !r.OK() {
		t.Fatalf("unknown move back: want OK:\n%s", r.Text())
	}
}

func TestC3Undecided(t *testing.T) {
	h := history.History{store("parser-1", 10, true), locate(20, "Inbox"), move(30, 40, "Inbox", "Archive")}
	r := Check(h, CheckOptions{})
	if !r.OK() || r.Decided() || len(r.Unknown) != 1 || r.Unknown[0].Name != "message m9" {
		t.Fatalf("want undecided message m9: %+v\n%s", r.Unknown, r.Text())
	}
	// A message nobody moved has nothing to judge: not a partition at all.
	r = Check(history.History{store("parser-1", 10, true), locate(20, "Inbox")}, CheckOptions{})
	if !r.OK() || !r.Decided() || r.Partitions != 0 {
		t.Fatalf("want nothing judged:\n%s", r.Text())
	}
}

func TestShapeJSONLRoundTrip(t *testing.T) {
	h := append(branchV(), state(60, "unliked"))
	h = append(h, branchM(true, []string{"Archive", "Inbox"}, []string{"Inbox"})...)
	var b bytes.Buffer
	if err := history.WriteJSONL(&b, h); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"folders":[]`) {
		t.Fatalf("an empty locate must be written as folders: []:\n%s", b.String())
	}
	back, err := history.ReadJSONL(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, h) {
		t.Fatalf("round trip differs:\n%+v\n%+v", back, h)
	}
	if got := kindsOf(Check(back, CheckOptions{}).Violations); len(got) != 2 {
		t.Fatalf("kinds after round trip = %v", got)
	}
}

func TestShapeBadLines(t *testing.T) {
	cases := map[string]string{
		`{"process":"D1","op":"write","call":1,"return":2,"input":{"device":"D1","item":"p1","value":"liked"},"output":{"outcome":"ok"}}`: "input.counter",
		`{"process":"D1","op":"write","call":1,"return":2,"input":{"device":"D1","item":"p1","value":"liked","counter":41}}`:              "output.outcome",
		`{"process":"D1","op":"write","call":1,"return":2,"input":{"device":"D1","item":"p1","value":"liked","counter":"41"}}`:            "input.counter",
		`{"process":"u","op":"move","call":1,"return":2,"input":{"message":"m9","from":"Inbox"},"output":{"outcome":"ok"}}`:               "input.to",
		`{"process":"u","op":"delete","call":1,"return":2,"input":{"message":"m9"},"output":{"outcome":"done"}}`:                          "output.outcome",
		`{"process":"r","op":"locate","call":1,"return":2,"input":{"message":"m9"},"output":{}}`:                                          "output.folders",
		`{"process":"r","op":"state","call":1,"return":2,"input":{"item":"p1"},"output":{}}`:                                              "output.value",
		`{"process":"p","op":"store","call":1,"return":1,"input":{"message":"m9"},"output":{}}`:                                           "output.stored",
	}
	for line, field := range cases {
		_, err := history.ReadJSONL(strings.NewReader("\n" + line + "\n"))
		var ie *history.InputError
		if !errors.As(err, &ie) || ie.Field != field || ie.Line != 2 {
			t.Errorf("%s: err = %v, want line 2 field %s", line, err, field)
		}
	}
	// An unknown outcome needs no output.
	if _, err := history.ReadJSONL(strings.NewReader(`{"process":"D1","op":"write","call":1,"return":null,"input":{"device":"D1","item":"p1","value":"liked","counter":41}}`)); err != nil {
		t.Fatal(err)
	}
}

func TestShapeRecorder(t *testing.T) {
	rec := history.NewRecorder()
	p := rec.Begin("D1-wifi", history.OpWrite, "", history.Input{ShapeInput: history.ShapeInput{Device: "D1", Item: "u1/p1", Value: "unliked", Counter: history.Int64(42)}})
	if err := p.End(history.Output{Outcome: history.OutcomeOK}); err != nil {
		t.Fatal(err)
	}
	p = rec.Begin("reader", history.OpLocate, "", history.Input{ShapeInput: history.ShapeInput{Message: "m9"}})
	if err := p.End(history.Output{ShapeOutput: history.ShapeOutput{Folders: history.Folders()}}); err != nil {
		t.Fatal(err)
	}
	if len(rec.History()) != 2 || len(rec.Errors()) != 0 {
		t.Fatalf("history %+v errors %v", rec.History(), rec.Errors())
	}
}

// The files docs/HISTORY.md (C2 and C3) shows, with exactly their kinds.
func TestShapeTestdata(t *testing.T) {
	for file, want := range map[string][]string{
		"shapes-legal.jsonl":        nil,
		"stale-write-applied.jsonl": {KindStaleWriteApplied},
		"effect-resurrected.jsonl":  {KindEffectResurrected, KindEffectResurrected},
	} {
		res := Check(readTestdata(t, file), CheckOptions{})
		if got := kindsOf(res.Violations); !reflect.DeepEqual(got, want) || !res.Decided() {
			t.Errorf("%s: kinds %v, want %v (decided %v)\n%s", file, got, want, res.Decided(), res.Text())
		}
		for _, v := range res.Violations {
			if len(v.Ops) == 0 || v.Message == "" || v.Partition == "" {
				t.Errorf("%s: violation without ops, message or place: %+v", file, v)
			}
		}
	}
}
