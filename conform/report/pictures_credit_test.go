package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/fakepsp"
)

// TestDoubleCreditPictureShowsDeliveriesAndCredits: a webhook finding's
// picture draws each delivery of the payment's events, with what sent it
// and what the handler answered, and the credits read after them.
func TestDoubleCreditPictureShowsDeliveriesAndCredits(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	in := "payments:u1:K1"
	create := checker.Op{Process: "client-u1", Op: checker.OpCreate, Call: t0.UnixNano(), Return: checker.Int64(t0.Add(30 * time.Millisecond).UnixNano()), Intent: in,
		Input: checker.Input{Fingerprint: "f", Amount: checker.Int64(1002), Currency: "USD"}, Output: &checker.Output{Outcome: checker.OutcomeSucceeded, PaymentID: "pay_1"}}
	charge := checker.Op{Process: "psp", Op: checker.OpCharge, Call: t0.Add(10 * time.Millisecond).UnixNano(), Return: checker.Int64(t0.Add(10 * time.Millisecond).UnixNano()), Intent: in,
		Input: checker.Input{PSPKey: "pay_1:charge", Amount: checker.Int64(1002)}, Output: &checker.Output{ChargeID: "ch_1"}}
	f := scenario.Finding{Level: scenario.Safety, Kind: checker.KindDoubleCredit, Message: "credited 2 times", Intent: in, Amount: 1002, Charges: []checker.Op{charge},
		Deliveries: []fakepsp.Delivery{
			{EventID: "evt_1", EventType: "payment_intent.succeeded", Attempt: 1, Status: 200, Signature: fakepsp.SignValid, Started: t0.Add(40 * time.Millisecond), At: t0.Add(45 * time.Millisecond)},
			{EventID: "evt_1", EventType: "payment_intent.succeeded", Attempt: 1, Status: 200, Signature: fakepsp.SignValid, Via: "duplicate, at once", Started: t0.Add(50 * time.Millisecond), At: t0.Add(55 * time.Millisecond)},
		},
		Credits: []int64{1002, 1002}, CreditsAt: t0.Add(600 * time.Millisecond).UnixNano()}
	res := scenario.Result{ID: "W-dup", Ops: checker.History{create, charge}}
	dir := t.TempDir()
	rel, why := picture(dir, res, 1, f, nil)
	if rel == "" {
		t.Fatalf("no picture: %s", why)
	}
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"webhook deliveries", "service credits", "credits [1002 1002]", "sent by duplicate, at once", "sent by the PSP's schedule, attempt 1"} {
		if !strings.Contains(page, want) {
			t.Errorf("the picture lacks %q", want)
		}
	}
}
