package checker

import (
	"bytes"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
)

// TestGeneratedLegal: heavy concurrency with unknown outcomes passes, with and
// without the initial balances.
func TestGeneratedLegal(t *testing.T) {
	for _, seed := range []int64{1, 2, 3} {
		h, initial := history.Generate(history.GenOptions{Seed: seed, Ops: 20000, UnknownRate: 0.05})
		t.Logf("seed %d: %d ops", seed, len(h))
		for _, opts := range []CheckOptions{{InitialBalances: initial}, {}} {
			res := Check(h, opts)
			if !res.OK() || !res.Decided() {
				t.Fatalf("seed %d: want legal, got\n%s", seed, res.Text())
			}
		}
	}
}

// allOpKinds is every op kind the checker reads: the table's and the shape
// kinds, which validate themselves.
func allOpKinds() []string {
	var ks []string
	for _, k := range history.OpKinds {
		ks = append(ks, k.Name)
	}
	return append(ks, history.OpWrite, history.OpState, history.OpMove, history.OpDelete, history.OpLocate, history.OpStore)
}

// TestGeneratedHasEveryKindAndStaysLegal: over seeds, sizes, client counts
// and unknown rates, each generated history holds every op kind and still
// has no violation, every partition decided; and together they hold the
// cases the rules treat apart (a partial refund, a PSP's replayed refund, a
// credit booked on another day, an unknown or failed shape op, a move back).
// A kind the generator stops emitting, or emits illegally, fails here before
// the mutation tests lose their meaning.
func TestGeneratedHasEveryKindAndStaysLegal(t *testing.T) {
	cases := map[string]int{}
	for _, o := range []history.GenOptions{
		{Seed: 1, Ops: 500, UnknownRate: 0.2},
		{Seed: 2, Ops: 2000, Clients: 1},
		{Seed: 3, Ops: 5000, Clients: 3, UnknownRate: 0.5},
		{Seed: 4, Ops: 10000, PerMerchant: 7},
		{Seed: 5, Ops: 20000, UnknownRate: 0.05},
		{Seed: 6, Ops: 20000, Clients: 32, UnknownRate: 0.01},
		{Seed: 7, Ops: 40000, UnknownRate: 0.1},
		{Seed: -8, Ops: 3000, UnknownRate: 1},
	} {
		h, initial := history.Generate(o)
		kinds := map[string]int{}
		charged := map[string]int64{}
		for i := range h {
			if op := &h[i]; op.Op == history.OpCharge {
				charged[op.Output.ChargeID] = *op.Input.Amount
			}
		}
		for i := range h {
			op := &h[i]
			kinds[op.Op]++
			switch {
			case op.Op == history.OpRefund && *op.Input.Amount < charged[op.Input.ChargeID]:
				cases["partial refund"]++
			case op.Op == history.OpCredit && op.Input.Day != "":
				cases["credit with a day"]++
			case (op.Op == history.OpWrite || op.Op == history.OpMove || op.Op == history.OpDelete) && !acked(op):
				cases["shape op not acknowledged"]++
			case op.Op == history.OpMove && op.Input.From == "Archive":
				cases["move back"]++
			}
		}
		cases["replayed refund"] += kinds[history.OpRefund] - countRefunds(refundsByCharge(h))
		for _, k := range allOpKinds() {
			if kinds[k] == 0 {
				t.Errorf("seed %d, %d ops: no %s op", o.Seed, len(h), k)
			}
		}
		for _, opts := range []CheckOptions{{InitialBalances: initial}, {}} {
			if res := Check(h, opts); !res.Passed() {
				t.Fatalf("seed %d: want legal and decided, got\n%s", o.Seed, res.Text())
			}
		}
		t.Logf("seed %d: %d ops %v", o.Seed, len(h), kinds)
	}
	for _, c := range []string{"partial refund", "replayed refund", "credit with a day", "shape op not acknowledged", "move back"} {
		if cases[c] == 0 {
			t.Errorf("no generated history has a %s", c)
		}
	}
	t.Logf("cases %v", cases)
}

func countRefunds(by map[string][]int) int {
	n := 0
	for _, rs := range by {
		n += len(rs)
	}
	return n
}

// TestGenerateIsDeterministic: `idemcheck gen` promises that a seed writes
// the same file, so a measured check can be re-run by anyone.
func TestGenerateIsDeterministic(t *testing.T) {
	file := func(seed int64) []byte {
		h, _ := history.Generate(history.GenOptions{Seed: seed, Ops: 3000, UnknownRate: 0.1})
		var b bytes.Buffer
		if err := history.WriteJSONL(&b, h); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	if !bytes.Equal(file(42), file(42)) {
		t.Fatal("one seed made two different histories")
	}
	if bytes.Equal(file(42), file(43)) {
		t.Fatal("two seeds made the same history")
	}
}

// BenchmarkGenerate times the generator at the size `idemcheck gen` writes by
// default, where its cost is part of checker_1m_s.
func BenchmarkGenerate(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		h, _ := history.Generate(history.GenOptions{Seed: 1, Ops: 1_000_000})
		b.ReportMetric(float64(len(h)), "ops")
	}
}
