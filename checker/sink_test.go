package checker

import (
	"bytes"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
)

func sinkOp(call int64, merchant, day string, total, tag int64) history.Op {
	ret := call
	return history.Op{Process: "sink-reader", Op: history.OpSink, Call: call, Return: &ret,
		Input: history.Input{Merchant: merchant, Day: day}, Output: &history.Output{Total: history.Int64(total), Tag: history.Int64(tag)}}
}

func creditOp(call int64, payment, merchant, day string, amount int64) history.Op {
	ret := call
	return history.Op{Process: "ledger", Op: history.OpCredit, Call: call, Return: &ret, PaymentID: payment,
		Input: history.Input{Merchant: merchant, Amount: history.Int64(amount), EventID: payment + ":SUCCEEDED", Day: day}}
}

func sinkKinds(r *Result) []string {
	var out []string
	for _, v := range r.Violations {
		out = append(out, v.Kind+" "+v.Merchant+": "+v.Message)
	}
	return out
}

func TestSinkMatchesLedger(t *testing.T) {
	h := history.History{creditOp(1, "pay_1", "m1", "2026-12-01", 12000), creditOp(2, "pay_7", "m1", "2026-12-01", 3000),
		sinkOp(10, "m1", "2026-12-01", 15000, 1)}
	if r := Check(h, CheckOptions{}); len(r.Violations) != 0 {
		t.Fatalf("violations on a correct sink: %v", sinkKinds(r))
	}
}

// F1's mutant: the declined m2 payment's total stays in the sink.
func TestSinkLeftoverKeyIsDivergence(t *testing.T) {
	h := history.History{creditOp(1, "pay_1", "m1", "2026-12-01", 12000), creditOp(2, "pay_7", "m1", "2026-12-01", 3000),
		sinkOp(10, "m1", "2026-12-01", 15000, 1), sinkOp(11, "m2", "2026-12-01", 500, 1)}
	r := Check(h, CheckOptions{})
	if len(r.Violations) != 1 || r.Violations[0].Kind != KindSinkDivergence || r.Violations[0].Merchant != "m2" {
		t.Fatalf("want one sink-divergence on m2, got %v", sinkKinds(r))
	}
	msg := r.Violations[0].Message
	for _, want := range []string{"(m2, 2026-12-01) = 500", "tag 1", "ledger truth 0"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

// F3's mutant: the replay was dropped, m1 stays 12000; and a key the sink
// lost entirely.
func TestSinkUnderBillAndMissingKey(t *testing.T) {
	h := history.History{creditOp(1, "pay_1", "m1", "2026-12-01", 12000), creditOp(2, "pay_7", "m1", "2026-12-01", 3000),
		creditOp(3, "pay_9", "m3", "2026-12-01", 700), sinkOp(10, "m1", "2026-12-01", 12000, 2)}
	r := Check(h, CheckOptions{})
	got := sinkKinds(r)
	if len(got) != 2 || !strings.Contains(got[0], "= 12000 tag 2, ledger truth 15000") || !strings.Contains(got[1], "(m3, 2026-12-01): no row, ledger truth 700") {
		t.Fatalf("got %v", got)
	}
}

// A payment credited twice counts once in the truth (its double credit is
// its own violation), and days are apart.
func TestSinkTruthCountsPaymentOnceAndByDay(t *testing.T) {
	h := history.History{creditOp(1, "pay_1", "m1", "2026-12-01", 12000), creditOp(2, "pay_1", "m1", "2026-12-01", 12000),
		creditOp(3, "pay_2", "m1", "2026-12-02", 100),
		sinkOp(10, "m1", "2026-12-01", 12000, 1), sinkOp(11, "m1", "2026-12-02", 100, 1)}
	r := Check(h, CheckOptions{})
	for _, v := range r.Violations {
		if v.Kind == KindSinkDivergence {
			t.Fatalf("unexpected %v", sinkKinds(r))
		}
	}
}

func TestSinkOpRoundTripsAndIsStrict(t *testing.T) {
	h := history.History{sinkOp(10, "m1", "2026-12-01", 15000, 3)}
	var b bytes.Buffer
	if err := history.WriteJSONL(&b, h); err != nil {
		t.Fatal(err)
	}
	back, err := history.ReadJSONL(&b)
	if err != nil || len(back) != 1 || *back[0].Output.Total != 15000 || *back[0].Output.Tag != 3 || back[0].Input.Day != "2026-12-01" {
		t.Fatalf("round trip: %v %+v", err, back)
	}
	for _, c := range []struct{ line, field string }{
		{`{"process":"r","op":"sink","call":1,"return":2,"input":{"merchant":"m1"},"output":{"total":1,"tag":1}}`, "input.day"},
		{`{"process":"r","op":"sink","call":1,"return":2,"input":{"merchant":"m1","day":"d"},"output":{"tag":1}}`, "output.total"},
		{`{"process":"r","op":"sink","call":1,"return":2,"input":{"merchant":"m1","day":"d"},"output":{"total":1}}`, "output.tag"},
	} {
		_, err := history.ReadJSONL(strings.NewReader(c.line))
		ie, ok := err.(*history.InputError)
		if !ok || ie.Field != c.field || ie.Line != 1 {
			t.Errorf("%s: want an error on %s, got %v", c.line, c.field, err)
		}
	}
}
