package checker

import (
	"fmt"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
)

// b builds small histories: c creates, r resolves, ch charges.
type hb struct{ h history.History }

func (b *hb) c(proc string, call int64, ret int64, fp, outcome, pid string) *hb {
	op := history.Op{Process: proc, Op: history.OpCreate, Call: call, Intent: "payments:u1:K1", Input: history.Input{Fingerprint: fp, Amount: history.Int64(3000), Currency: "USD"}}
	if ret >= 0 {
		op.Return, op.Output = history.Int64(ret), &history.Output{Outcome: outcome, PaymentID: pid}
	}
	b.h = append(b.h, op)
	return b
}

func (b *hb) r(proc string, call, ret int64, outcome string) *hb {
	b.h = append(b.h, history.Op{Process: proc, Op: history.OpResolve, Call: call, Return: history.Int64(ret), Intent: "payments:u1:K1", Output: &history.Output{Outcome: outcome}})
	return b
}

func (b *hb) ch(call, ret int64) *hb {
	b.h = append(b.h, history.Op{Process: fmt.Sprint("psp-", call), Op: history.OpCharge, Call: call, Return: history.Int64(ret), PaymentID: "pay_7",
		Input: history.Input{PSPKey: "pay_7:charge", Amount: history.Int64(3000), Metadata: map[string]string{"intent": "payments:u1:K1"}}, Output: &history.Output{ChargeID: "ch"}})
	return b
}

func TestIntentModel(t *testing.T) {
	cases := []struct {
		name string
		b    *hb
		want []string
	}{
		{"unknown claim explains a later mismatch", new(hb).c("a", 0, -1, "fA", "", "").c("b", 10, 20, "fB", history.OutcomeMismatch, ""), nil},
		{"unknown claim not applied: the other claims", new(hb).c("a", 0, -1, "fA", "", "").c("b", 10, 20, "fB", history.OutcomeFailed, "pay_8"), nil},
		{"concurrent claims: either wins", new(hb).c("a", 0, 20, "fA", history.OutcomeMismatch, "").c("b", 5, 15, "fB", history.OutcomeFailed, "pay_8"), nil},
		{"error answer is no information", new(hb).c("a", 0, 5, "fA", history.OutcomeError, "").c("b", 10, 20, "fB", history.OutcomeMismatch, ""), nil},
		{"resolve voids an absent intent", new(hb).r("a", 0, 5, history.OutcomeVoid).c("b", 10, 20, "fA", history.OutcomeVoid, ""), nil},
		{"resolve races the claim", new(hb).r("a", 0, 20, history.OutcomeVoid).c("b", 5, 15, "fA", history.OutcomeVoid, ""), nil},
		// The create claimed inside its call, RESOLVE heard it held, and the
		// create answered only after the charge it made.
		{"resolve hears the racing create hold the key", new(hb).r("r", 0, 10, history.OutcomeProcessing).c("a", 1, 20, "fA", history.OutcomeSucceeded, "pay_7").ch(12, 13), nil},
		{"resolve heard processing, then the key went void", new(hb).r("r", 0, 10, history.OutcomeProcessing).c("a", 20, 30, "fA", history.OutcomeVoid, ""), []string{KindInconsistentAnswer}},
		{"resolve heard processing after void", new(hb).r("r", 0, 5, history.OutcomeVoid).r("s", 10, 20, history.OutcomeProcessing), []string{KindInconsistentAnswer}},
		{"processing then succeeded", new(hb).c("a", 0, 10, "fA", history.OutcomeProcessing, "pay_7").ch(12, 13).c("a", 20, 30, "fA", history.OutcomeSucceeded, "pay_7"), nil},
		{"succeeded before any charge", new(hb).c("a", 0, 10, "fA", history.OutcomeSucceeded, "pay_7").ch(12, 13), []string{KindInconsistentAnswer}},
		{"processing after succeeded", new(hb).ch(1, 2).c("a", 0, 10, "fA", history.OutcomeSucceeded, "pay_7").c("a", 20, 30, "fA", history.OutcomeProcessing, "pay_7"), []string{KindFailedButCharged, KindInconsistentAnswer}},
		{"failed although charged (A7)", new(hb).c("a", 0, -1, "fA", "", "").ch(1, 2).c("a", 20, 30, "fA", history.OutcomeFailed, "pay_7"), []string{KindFailedButCharged, KindInconsistentAnswer}},
		{"charged after failed", new(hb).c("a", 0, 10, "fA", history.OutcomeFailed, "pay_7").ch(20, 21), []string{KindFailedButCharged, KindInconsistentAnswer}},
		{"failed concurrent with the charge", new(hb).ch(1, 2).c("a", 0, 10, "fA", history.OutcomeFailed, "pay_7"), []string{KindFailedButCharged, KindInconsistentAnswer}},
		{"mismatch accepted after an unknown claim", new(hb).c("a", 0, 5, "fA", history.OutcomeError, "").c("b", 10, 20, "fB", history.OutcomeSucceeded, "pay_7").ch(12, 13).c("c", 30, 40, "fA", history.OutcomeMismatch, ""), nil},
		{"void then answered failed", new(hb).r("a", 0, 5, history.OutcomeVoid).c("b", 10, 20, "fA", history.OutcomeFailed, "pay_7"), []string{KindInconsistentAnswer}},
		{"void then answered in_progress", new(hb).r("a", 0, 5, history.OutcomeVoid).c("b", 10, 20, "fA", history.OutcomeInProgress, ""), []string{KindInconsistentAnswer}},
		{"void then answered succeeded", new(hb).r("a", 0, 5, history.OutcomeVoid).c("b", 10, 20, "fA", history.OutcomeSucceeded, "pay_7"), []string{KindEffectAfterVoid}},
		{"charge before a claim is held to the earlier request", new(hb).c("a", 0, -1, "fA", "", "").ch(1, 2).c("b", 10, 20, "fB", history.OutcomeSucceeded, "pay_7"), []string{KindMismatchAccepted}},
		{"charge before a claim by a request called before it", new(hb).c("a", 0, 30, "fA", history.OutcomeSucceeded, "pay_7").ch(1, 2).c("r", 5, 8, "fA", history.OutcomeInProgress, "pay_7"), nil},
		{"in_progress to another body while the owner runs", new(hb).c("a", 0, 30, "fA", history.OutcomeSucceeded, "pay_7").c("b", 1, 3, "fB", history.OutcomeInProgress, "").ch(5, 6), nil},
		{"in_progress to another body after the owner is final", new(hb).c("a", 0, 10, "fA", history.OutcomeSucceeded, "pay_7").ch(5, 6).c("b", 20, 30, "fB", history.OutcomeInProgress, ""), []string{KindInconsistentAnswer}},
		{"in_progress after a resolve heard succeeded (B5)", new(hb).c("a", 0, 5, "fA", history.OutcomeError, "").ch(1, 2).r("a", 10, 20, history.OutcomeSucceeded).c("a", 30, 40, "fA", history.OutcomeInProgress, "pay_7"), []string{KindFailedButCharged, KindInconsistentAnswer}},
		// issue 50: an in_progress after the final answer constrains nothing
		// when the request is told the outcome after it; never told, it is
		// the quiescence rule's.
		{"in_progress after the final, then the final again", new(hb).c("a", 0, 10, "fA", history.OutcomeSucceeded, "pay_7").ch(5, 6).c("a", 20, 30, "fA", history.OutcomeInProgress, "").c("a", 40, 50, "fA", history.OutcomeSucceeded, "pay_7"), nil},
		{"in_progress after the final, never settled", new(hb).c("a", 0, 10, "fA", history.OutcomeSucceeded, "pay_7").ch(5, 6).c("a", 20, 30, "fA", history.OutcomeInProgress, "").c("a", 40, 50, "fA", history.OutcomeError, ""), []string{KindFailedButCharged, KindInconsistentAnswer}},
		{"in_progress overlapping the final answer, last", new(hb).c("a", 0, 10, "fA", history.OutcomeSucceeded, "pay_7").ch(5, 6).c("b", 5, 30, "fA", history.OutcomeInProgress, ""), nil},
		{"in_progress to another body after the final, then mismatch", new(hb).c("a", 0, 10, "fA", history.OutcomeSucceeded, "pay_7").ch(5, 6).c("b", 20, 30, "fB", history.OutcomeInProgress, "").c("b", 40, 50, "fB", history.OutcomeMismatch, ""), nil},
		{"in_progress after a decline, never settled", new(hb).c("a", 0, 10, "fA", history.OutcomeFailed, "pay_7").c("a", 20, 30, "fA", history.OutcomeInProgress, ""), []string{KindInconsistentAnswer}},
		{"false mismatch with an unknown other fp first", new(hb).c("x", 0, -1, "fB", "", "").c("a", 10, 20, "fA", history.OutcomeFailed, "pay_7").c("b", 30, 40, "fA", history.OutcomeMismatch, ""), []string{KindFalseMismatch}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := Check(c.b.h, CheckOptions{})
			got := kindsOf(res.Violations)
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("kinds = %v, want %v\n%s", got, c.want, res.Text())
			}
		})
	}
}

// TestFoldUnknownCreates: thousands of timed-out retries with one
// fingerprint fold into one porcupine op, so the check stays instant.
func TestFoldUnknownCreates(t *testing.T) {
	b := new(hb)
	for i := int64(0); i < 5000; i++ {
		b.c(fmt.Sprint("phone-", i), i, -1, "fA", "", "")
	}
	b.ch(10, 11).c("z", 6000, 6010, "fA", history.OutcomeSucceeded, "pay_7").c("y", 6020, 6030, "fB", history.OutcomeMismatch, "")
	l := link(b.h)
	parts := intentPartitions(b.h, l, true)
	if len(parts) != 1 || len(parts[0].ops) != 4 || len(parts[0].members) != 5003 {
		t.Fatalf("partition: %d parts, %d porcupine ops, %d members; want 1, 4, 5003", len(parts), len(parts[0].ops), len(parts[0].members))
	}
	if res := Check(b.h, CheckOptions{}); !res.OK() || !res.Decided() {
		t.Fatal(res.Text())
	}
}

// TestPathologicalPartition: thousands of overlapping unknown creates with
// distinct fingerprints cannot be folded; the search runs out of time and the
// partition is reported undecided, while the definite violation in it is
// still reported.
func TestPathologicalPartition(t *testing.T) {
	b := new(hb)
	for i := int64(0); i < 3000; i++ {
		b.c(fmt.Sprint("phone-", i), i, -1, fmt.Sprint("f", i), "", "")
	}
	b.ch(10, 11)
	b.c("z", 4000, 4010, "fZ", history.OutcomeSucceeded, "pay_7")
	b.c("y", 4020, 4030, "fY", history.OutcomeSucceeded, "pay_7")
	start := time.Now()
	res := Check(b.h, CheckOptions{Timeout: 300 * time.Millisecond})
	took := time.Since(start)
	if res.Decided() {
		t.Fatalf("want the partition undecided\n%s", res.Text())
	}
	if got := kindsOf(res.Violations); fmt.Sprint(got) != fmt.Sprint([]string{KindMismatchAccepted}) {
		t.Fatalf("kinds = %v, want [mismatch-accepted]\n%s", got, res.Text())
	}
	t.Logf("undecided after %v: %v", took, res.Unknown)
}

// TestPathologicalAmongMany: one hard partition among thousands of easy ones
// costs about its own timeout, not more, and the rest is still decided.
func TestPathologicalAmongMany(t *testing.T) {
	h, initial := history.Generate(history.GenOptions{Seed: 5, Ops: 20000})
	for i := int64(0); i < 3000; i++ {
		h = append(h, history.Op{Process: fmt.Sprint("storm-", i), Op: history.OpCreate, Call: i, Intent: "payments:storm:K1",
			Input: history.Input{Fingerprint: fmt.Sprint("f", i), Amount: history.Int64(1), Currency: "USD"}})
	}
	h = append(h,
		history.Op{Process: "z", Op: history.OpCreate, Call: 4000, Return: history.Int64(4010), Intent: "payments:storm:K1",
			Input: history.Input{Fingerprint: "fZ", Amount: history.Int64(1), Currency: "USD"}, Output: &history.Output{Outcome: history.OutcomeMismatch}},
		history.Op{Process: "y", Op: history.OpCreate, Call: 4020, Return: history.Int64(4030), Intent: "payments:storm:K1",
			Input: history.Input{Fingerprint: "fY", Amount: history.Int64(1), Currency: "USD"}, Output: &history.Output{Outcome: history.OutcomeMismatch}},
		history.Op{Process: "w", Op: history.OpResolve, Call: 4040, Return: history.Int64(4050), Intent: "payments:storm:K1", Output: &history.Output{Outcome: history.OutcomeVoid}},
	)
	start := time.Now()
	res := Check(h, CheckOptions{Timeout: 500 * time.Millisecond, InitialBalances: initial})
	took := time.Since(start)
	t.Logf("took %v; undecided %v; violations %d", took, res.Unknown, len(res.Violations))
	if len(res.Unknown) > 1 || (len(res.Unknown) == 1 && res.Unknown[0].Name != "intent payments:storm:K1") {
		t.Fatalf("undecided = %v, want at most the storm intent", res.Unknown)
	}
	if res.Partitions < 4000 {
		t.Fatalf("partitions = %d", res.Partitions)
	}
}

// TestRetryStormLegal: 200 overlapping copies of one request, some timed
// out, some answered in_progress, then the charge and succeeded answers:
// legal, and decided quickly.
func TestRetryStormLegal(t *testing.T) {
	b := new(hb)
	for i := int64(0); i < 200; i++ {
		proc := fmt.Sprint("phone-", i)
		switch i % 3 {
		case 0:
			b.c(proc, i, -1, "fA", "", "")
		case 1:
			b.c(proc, i, 1000+i, "fA", history.OutcomeInProgress, "pay_7")
		default:
			b.c(proc, i, 2000+i, "fA", history.OutcomeSucceeded, "pay_7")
		}
	}
	b.ch(500, 600)
	b.c("other", 100, 150, "fB", history.OutcomeMismatch, "")
	start := time.Now()
	res := Check(b.h, CheckOptions{Timeout: 5 * time.Second})
	if !res.OK() || !res.Decided() {
		t.Fatalf("want legal:\n%s", res.Text())
	}
	t.Logf("decided in %v", time.Since(start))
}
