package kit

import (
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
)

// TestChargesTieToTheAnswer: a service's own charge rows become charge ops
// the checker links to the intent through the payment id the client heard,
// so two rows for one intent are a double charge.
func TestChargesTieToTheAnswer(t *testing.T) {
	rec := history.NewRecorder()
	p := rec.Begin("app-1", history.OpCreate, "payments:u1:K1", history.Input{Fingerprint: "f", Amount: history.Int64(3000), Currency: "USD"})
	at := time.Now() // the service charged while the create was in flight
	p.SetPaymentID("pay_1")
	if err := p.End(history.Output{Outcome: history.OutcomeSucceeded, PaymentID: "pay_1"}); err != nil {
		t.Fatal(err)
	}
	one := Charges("service", []Charge{{PaymentID: "pay_1", Key: "pay_1", ChargeID: "ch_1", Amount: 3000, At: at}})
	if len(one) != 1 || one[0].Op != history.OpCharge || one[0].Call != at.UnixNano() || *one[0].Return != at.UnixNano() {
		t.Fatalf("ops %+v", one)
	}
	if res := checker.Check(append(rec.History(), one...), checker.CheckOptions{}); !res.Passed() {
		t.Fatalf("one charge: %s", res.Text())
	}
	two := Charges("service", []Charge{{PaymentID: "pay_1", Key: "pay_1", ChargeID: "ch_1", Amount: 3000, At: at},
		{PaymentID: "pay_1", Key: "retry", ChargeID: "ch_2", Amount: 3000, At: at.Add(time.Nanosecond)}})
	if res := checker.Check(append(rec.History(), two...), checker.CheckOptions{}); len(res.ByKind(checker.KindDoubleCharge)) != 1 {
		t.Fatalf("two charges of pay_1: %s", res.Text())
	}
}
