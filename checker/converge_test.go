package checker

import (
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
)

// TestFailedButCharged: hand-made histories in which the PSP charged and the
// client's final answer is not succeeded are named failed-but-charged, with
// the intent, the charge and the answers; nothing else is found in them.
func TestFailedButCharged(t *testing.T) {
	cases := []struct {
		file  string
		heard string   // the final answer the message must name
		names []string // the charge and answers the message must name
	}{
		// A1 with the 500 replayed forever: every answer rendered "processing".
		{"failed-but-charged-processing.jsonl", `final answer was "processing"`,
			[]string{"ch_1 of 3000", `"pay_7:charge"`, "create processing pay_7, create processing pay_7, resolve processing pay_7"}},
		{"failed-but-charged-error.jsonl", `final answer was "error"`, []string{"ch_1 of 3000", "create error, create error"}},
		{"failed-but-charged-no-answer.jsonl", "no answer (every attempt timed out)", []string{"ch_1 of 3000", "create ?, create ?"}},
		// 1000 of 3000 refunded still leaves the buyer charged.
		{"failed-but-charged-partial-refund.jsonl", `final answer was "in_progress"`, []string{"ch_1 of 3000", "create in_progress pay_7"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			res := Check(readTestdata(t, c.file), CheckOptions{})
			if got := kindsOf(res.Violations); len(got) != 1 || got[0] != KindFailedButCharged {
				t.Fatalf("kinds = %v, want [%s]\n%s", got, KindFailedButCharged, res.Text())
			}
			v := res.Violations[0]
			if v.Intent != "payments:u1:K1" {
				t.Errorf("intent = %q", v.Intent)
			}
			for _, want := range append([]string{c.heard}, c.names...) {
				if !strings.Contains(v.Message, want) {
					t.Errorf("message lacks %q: %s", want, v.Message)
				}
			}
			charges := 0
			for _, op := range v.Ops {
				if op.Op == history.OpCharge {
					charges++
				}
			}
			if charges != 1 || len(v.Ops) < 2 {
				t.Errorf("ops = %+v, want the charge and the answers", v.Ops)
			}
			if !res.Decided() {
				t.Errorf("undecided: %v", res.Unknown)
			}
		})
	}
}

// TestConvergedNotFlagged: what must not be failed-but-charged. One file
// holds a payment that ends succeeded (an in_progress copy overlapping the
// success, an error and another request's mismatch after it), a declined
// payment with no charge, a charge refunded in full by two refunds, and a
// charge no client op names (effects only: nothing to judge the client by).
func TestConvergedNotFlagged(t *testing.T) {
	res := Check(readTestdata(t, "converged.jsonl"), CheckOptions{})
	if !res.OK() || !res.Decided() {
		t.Fatalf("want no violation, got\n%s", res.Text())
	}
}

// TestFailedButChargedAfterSuccess: a question asked after the success was
// heard and answered processing counts against it (and the model calls it
// inconsistent); one called before the success returned does not.
func TestFailedButChargedAfterSuccess(t *testing.T) {
	overlapping := new(hb).ch(1, 2).c("a", 0, 10, "fA", history.OutcomeSucceeded, "pay_7").c("b", 5, 20, "fA", history.OutcomeInProgress, "pay_7")
	if res := Check(overlapping.h, CheckOptions{}); !res.OK() {
		t.Fatalf("an in_progress copy overlapping the success was flagged:\n%s", res.Text())
	}
	later := new(hb).ch(1, 2).c("a", 0, 10, "fA", history.OutcomeSucceeded, "pay_7").c("b", 11, 20, "fA", history.OutcomeProcessing, "pay_7")
	res := Check(later.h, CheckOptions{})
	if vs := res.ByKind(KindFailedButCharged); len(vs) != 1 || !strings.Contains(vs[0].Message, "after it had heard succeeded") {
		t.Fatalf("processing after the success: want failed-but-charged, got\n%s", res.Text())
	}
}

// BenchmarkFailedButCharged measures the invariant alone and the whole Check
// on one generated history, so the invariant's share of Check is one ratio
// of one run.
func BenchmarkFailedButCharged(b *testing.B) {
	h, initial := history.Generate(history.GenOptions{Seed: 1, Ops: 100_000, UnknownRate: 0.01})
	b.Run("invariant", func(b *testing.B) {
		hh, _ := history.WellFormed(h)
		l := link(hh)
		for range b.N {
			if vs := failedButCharged(hh, l); len(vs) != 0 {
				b.Fatalf("a legal history flagged: %v", vs[0].Message)
			}
		}
	})
	b.Run("check", func(b *testing.B) {
		for range b.N {
			if res := Check(h, CheckOptions{InitialBalances: initial}); !res.OK() {
				b.Fatal(res.Text())
			}
		}
	})
}
