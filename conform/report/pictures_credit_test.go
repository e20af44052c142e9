package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// TestDoubleCreditPictureShowsDeliveriesAndCredits: a webhook finding's
// picture draws each delivery of the payment's events, with what sent it
// and what the handler answered, and the credits read after them.
func TestDoubleCreditPictureShowsDeliveriesAndCredits(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	in := "payments:u1:K1"
	create := history.Op{Process: "client-u1", Op: history.OpCreate, Call: t0.UnixNano(), Return: history.Int64(t0.Add(30 * time.Millisecond).UnixNano()), Intent: in,
		Input: history.Input{Fingerprint: "f", Amount: history.Int64(1002), Currency: "USD"}, Output: &history.Output{Outcome: history.OutcomeSucceeded, PaymentID: "pay_1"}}
	charge := history.Op{Process: "psp", Op: history.OpCharge, Call: t0.Add(10 * time.Millisecond).UnixNano(), Return: history.Int64(t0.Add(10 * time.Millisecond).UnixNano()), Intent: in,
		Input: history.Input{PSPKey: "pay_1:charge", Amount: history.Int64(1002)}, Output: &history.Output{ChargeID: "ch_1"}}
	f := scenario.Finding{Level: scenario.Safety, Kind: checker.KindDoubleCredit, Message: "credited 2 times", Intent: in, Amount: 1002, Charges: []history.Op{charge},
		Deliveries: []core.Delivery{
			{EventID: "evt_1", EventType: "payment_intent.succeeded", Attempt: 1, Status: 200, Signature: core.SignValid, Started: t0.Add(40 * time.Millisecond), At: t0.Add(45 * time.Millisecond)},
			{EventID: "evt_1", EventType: "payment_intent.succeeded", Attempt: 1, Status: 200, Signature: core.SignValid, Via: "duplicate, at once", Started: t0.Add(50 * time.Millisecond), At: t0.Add(55 * time.Millisecond)},
		},
		Credits: []int64{1002, 1002}, CreditsAt: t0.Add(600 * time.Millisecond).UnixNano()}
	pictureShows(t, scenario.Result{ID: "W-dup", Ops: history.History{create, charge}}, f, nil,
		"webhook deliveries", "service credits", "credits [1002 1002]", "sent by duplicate, at once", "sent by the PSP's schedule, attempt 1")
}

// pictureShows draws f's picture and fails for each of wants its page lacks.
func pictureShows(t *testing.T, res scenario.Result, f scenario.Finding, atts []*driver.Attempt, wants ...string) {
	t.Helper()
	dir := t.TempDir()
	rel, why := picture(dir, res, 1, f, atts)
	if rel == "" {
		t.Fatalf("no picture: %s", why)
	}
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range wants {
		if !strings.Contains(string(b), want) {
			t.Errorf("the picture lacks %q", want)
		}
	}
}

// TestCrossCallerPictureShowsBothRequests: the picture of u2 receiving u1's
// payment draws u1's request too (it lives under u1's intent, which u2's
// timeline leaves out) and says the finding in words above the timeline.
func TestCrossCallerPictureShowsBothRequests(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	op := func(caller string, at time.Duration) history.Op {
		return history.Op{Process: "client-" + caller, Op: history.OpCreate, Call: t0.Add(at).UnixNano(), Return: history.Int64(t0.Add(at + 20*time.Millisecond).UnixNano()),
			Intent: "payments:" + caller + ":K1", Input: history.Input{Fingerprint: "f-" + caller, Amount: history.Int64(1002), Currency: "USD"},
			Output: &history.Output{Outcome: history.OutcomeSucceeded, PaymentID: "pay_u1"}}
	}
	u1, u2 := op("u1", 0), op("u2", 100*time.Millisecond)
	att := func(seq int, o history.Op, caller string) *driver.Attempt {
		return &driver.Attempt{Seq: seq, Step: caller + " uses the key", Caller: caller, Intent: o.Intent, Call: o.Call, Return: *o.Return,
			Status: 200, Outcome: history.OutcomeSucceeded, PaymentID: "pay_u1"}
	}
	f := scenario.Finding{Level: scenario.Safety, Kind: checker.KindInconsistentAnswer, Message: "u2 received u1's answer: payment pay_u1", Intent: u2.Intent}
	pictureShows(t, scenario.Result{ID: "A6", Ops: history.History{u1, u2}}, f, []*driver.Attempt{att(1, u1, "u1"), att(2, u2, "u2")},
		`id="idemcheck-caption"`, "inconsistent-answer: u2 received u1&#39;s answer: payment pay_u1",
		"other intents' requests", "u1's request 1 (u1 uses the key, intent payments:u1:K1) was answered 200 succeeded pay_u1")
}
