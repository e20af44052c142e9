package core

import (
	"context"
	"sync"
	"testing"
	"time"
)

// The payment operations without any dialect: what each does to a
// payment's state and money, what it records as ground truth, and what
// its refusals carry.

func testOps() (Ops, *GroundTruth, *Faults) {
	truth := NewGroundTruth(nil, nil)
	faults := NewFaults(func(bool) {}, nil)
	return Ops{Ctx: context.Background(), Lock: &sync.Mutex{}, Now: func() time.Time { return time.Unix(1700000000, 0) },
		Faults: faults, Truth: truth}, truth, faults
}

func counter(prefix string) func() string {
	n := 0
	return func() string { n++; return prefix + string(rune('0'+n)) }
}

// TestConfirmAutomaticCharges: an automatic confirmation settles the whole
// amount under the request's key and records one charge op naming the
// attempt; the dialect's hooks run once each, in order.
func TestConfirmAutomaticCharges(t *testing.T) {
	ops, truth, _ := testOps()
	p := &Payment{ID: "pay1", Amount: 1000, Currency: "eur", Method: "m", Metadata: MetadataOf(map[string]string{"payment_id": "P", "intent": "I"})}
	if out := ops.Create(p, Hooks{}); out.State != StateHasMethod || p.Created != 1700000000 {
		t.Fatalf("create: %+v, created %d", out, p.Created)
	}
	var calls []string
	out := ops.Confirm(p, Confirm{Key: "k1", Method: "m", AttemptID: counter("at")}, Hooks{
		Locked:    func(o Outcome) { calls = append(calls, "locked:"+o.Target.Op) },
		Published: func() { calls = append(calls, "published") },
	})
	if out.Reason != Done || out.State != StateSucceeded || out.Amount != 1000 || out.Target != (Target{Key: "k1", Amount: 1000, Op: "charge"}) {
		t.Fatalf("outcome %+v", out)
	}
	if len(calls) != 2 || calls[0] != "locked:charge" || calls[1] != "published" {
		t.Fatalf("hooks %v", calls)
	}
	if p.Received != 1000 || p.ChargeKey != "k1" || p.AttemptID != "at1" || p.AttemptAt != 1700000000 {
		t.Fatalf("payment %+v", p)
	}
	ops1 := truth.Ops("")
	if len(ops1) != 1 || ops1[0].Op != "charge" || ops1[0].Input.PSPKey != "k1" || *ops1[0].Input.Amount != 1000 ||
		ops1[0].Input.Currency != "eur" || ops1[0].Output.ChargeID != "at1" || ops1[0].PaymentID != "P" || ops1[0].Intent != "I" {
		t.Fatalf("ground truth %+v", ops1)
	}
	again := ops.Confirm(p, Confirm{Key: "k2", Method: "m", AttemptID: counter("at")}, Hooks{Locked: func(Outcome) { t.Error("a refused confirm ran the dialect's hook") }})
	if again.Reason != ReasonState || again.State != StateSucceeded || len(truth.Ops("")) != 1 {
		t.Fatalf("second confirm: %+v, %d ops", again, len(truth.Ops("")))
	}
}

// TestDeclineMovesNothing: a declined method makes an attempt, puts the
// payment back to needing a method, records nothing, and may be retried.
func TestDeclineMovesNothing(t *testing.T) {
	ops, truth, _ := testOps()
	p := &Payment{Amount: 500, Method: "bad"}
	ops.Create(p, Hooks{})
	ids := counter("at")
	out := ops.Confirm(p, Confirm{Key: "k1", Method: "bad", Declined: true, AttemptID: ids}, Hooks{})
	if out.Reason != ReasonDeclined || p.State != StateNoMethod || p.AttemptID != "at1" || p.Received != 0 || len(truth.Ops("")) != 0 {
		t.Fatalf("decline: %+v, payment %+v", out, p)
	}
	out = ops.Confirm(p, Confirm{Key: "k2", Method: "good", AttemptID: ids}, Hooks{})
	if out.Reason != Done || p.State != StateSucceeded || p.AttemptID != "at2" || len(truth.Ops("")) != 1 {
		t.Fatalf("retry: %+v, payment %+v", out, p)
	}
}

// TestManualCaptureThenRefund: a manual payment is authorized at
// confirmation (no op), captured in part (one charge op of the part, the
// rest released, metadata updated first), then refunded up to what was
// captured and no further.
func TestManualCaptureThenRefund(t *testing.T) {
	ops, truth, _ := testOps()
	p := &Payment{Amount: 3000, Manual: true, Method: "m", Metadata: MetadataOf(map[string]string{"a": "1"})}
	ops.Create(p, Hooks{})
	if out := ops.Confirm(p, Confirm{Key: "k1", Method: "m", AttemptID: counter("at")}, Hooks{}); out.State != StateAuthorized ||
		out.Target.Op != "authorize" || p.Capturable != 3000 || len(truth.Ops("")) != 0 {
		t.Fatalf("authorize: %+v, payment %+v", out, p)
	}
	if _, out := ops.CaptureAmount(p, 4000, false); out.Reason != ReasonTooLarge || out.Left != 3000 {
		t.Fatalf("capture too much: %+v", out)
	}
	amount, _ := ops.CaptureAmount(p, 2500, false)
	b := "2"
	out := ops.Capture(p, Capture{Key: "k2", Amount: amount, Metadata: map[string]*string{"a": nil, "b": &b}}, Hooks{})
	if out.Reason != Done || p.State != StateSucceeded || p.Received != 2500 || p.Released != 500 || p.Capturable != 0 || p.ChargeKey != "k2" {
		t.Fatalf("capture: %+v, payment %+v", out, p)
	}
	charges := truth.Ops("charge")
	if len(charges) != 1 || *charges[0].Input.Amount != 2500 || charges[0].Input.Metadata["b"] != "2" || charges[0].Input.Metadata["a"] != "" {
		t.Fatalf("charge ops %+v", charges)
	}
	if out := ops.Capture(p, Capture{Key: "k3", Amount: 100}, Hooks{}); out.Reason != ReasonState || out.State != StateSucceeded {
		t.Fatalf("second capture: %+v", out)
	}
	if st, left := ops.Refundable(p); st != StateSucceeded || left != 2500 {
		t.Fatalf("refundable %v %d", st, left)
	}
	ids := counter("re")
	if out := ops.Refund(p, Refund{Key: "k4", Amount: 3000, RefundID: ids}, Hooks{}); out.Reason != ReasonTooLarge || out.Left != 2500 || out.Amount != 3000 {
		t.Fatalf("refund too much: %+v", out)
	}
	out = ops.Refund(p, Refund{Key: "k5", Amount: 1000, Request: "r1", RefundID: ids}, Hooks{})
	if out.Reason != Done || out.Amount != 1000 || out.RefundID != "re1" || p.Refunded != 1000 {
		t.Fatalf("refund: %+v, payment %+v", out, p)
	}
	out = ops.Refund(p, Refund{Key: "k6", Amount: 1000, Whole: true, RefundID: ids}, Hooks{})
	if out.Amount != 1500 || p.Refunded != 2500 {
		t.Fatalf("refund the rest: %+v, payment %+v", out, p)
	}
	if out := ops.Refund(p, Refund{Key: "k7", Whole: true, RefundID: ids}, Hooks{}); out.Reason != ReasonNothingLeft {
		t.Fatalf("refund of nothing: %+v", out)
	}
	refunds := truth.Ops("refund")
	if len(refunds) != 2 || refunds[0].Input.Request != "r1" || refunds[0].Output.RefundID != "re1" || refunds[0].Input.ChargeID != "at1" ||
		*refunds[1].Input.Amount != 1500 || refunds[1].Output.RefundID != "re2" {
		t.Fatalf("refund ops %+v", refunds)
	}
}

// TestCancelReleases: a cancel releases the authorization and records
// nothing; a canceled payment refuses a capture and another cancel.
func TestCancelReleases(t *testing.T) {
	ops, truth, _ := testOps()
	p := &Payment{Amount: 700, Manual: true, Method: "m"}
	ops.Create(p, Hooks{})
	ops.Confirm(p, Confirm{Key: "k1", Method: "m", AttemptID: counter("at")}, Hooks{})
	out := ops.Cancel(p, "k2", Hooks{})
	if out.Reason != Done || out.Amount != 700 || out.Target != (Target{Key: "k2", Amount: 700, Op: "cancel"}) ||
		p.State != StateCanceled || p.Released != 700 || p.Capturable != 0 || p.CanceledAt != 1700000000 || len(truth.Ops("")) != 0 {
		t.Fatalf("cancel: %+v, payment %+v", out, p)
	}
	if out := ops.Cancel(p, "k3", Hooks{}); out.Reason != ReasonState || out.State != StateCanceled {
		t.Fatalf("second cancel: %+v", out)
	}
	if out := ops.Capture(p, Capture{Key: "k4", Amount: 700}, Hooks{}); out.Reason != ReasonState {
		t.Fatalf("capture after cancel: %+v", out)
	}
}

// TestEffectPointFaults: a 500 before the effect changes nothing and runs
// no hook; a 500 after it keeps the effect and says so in After.
func TestEffectPointFaults(t *testing.T) {
	ops, truth, faults := testOps()
	p := &Payment{Amount: 900, Method: "m"}
	ops.Create(p, Hooks{})
	faults.Arm(FaultSpec{Kind: Error500BeforeCharge, Match: Match{PSPKey: "k1", Times: 1}})
	out := ops.Confirm(p, Confirm{Key: "k1", Method: "m", AttemptID: counter("at")}, Hooks{Locked: func(Outcome) { t.Error("hook ran under a fault before the effect") }})
	if out.Reason != ReasonInternal || p.State != StateHasMethod || len(truth.Ops("")) != 0 {
		t.Fatalf("500 before: %+v, payment %+v", out, p)
	}
	faults.Arm(FaultSpec{Kind: Error500AfterCharge, Match: Match{PSPKey: "k2", Times: 1}})
	out = ops.Confirm(p, Confirm{Key: "k2", Method: "m", AttemptID: counter("at")}, Hooks{})
	if out.Reason != Done || !out.After.Refuse || out.After.Lose || p.State != StateSucceeded || len(truth.Ops("")) != 1 {
		t.Fatalf("500 after: %+v, payment %+v", out, p)
	}
}

// TestUpdateBeforeConfirm: an update changes amount, currency and method
// (a payment without one now has one to confirm) and merges metadata;
// zero fields keep theirs, and nothing is recorded.
func TestUpdateBeforeConfirm(t *testing.T) {
	ops, truth, _ := testOps()
	p := &Payment{Amount: 600, Currency: "usd", Metadata: MetadataOf(map[string]string{"a": "1", "b": "2"})}
	ops.Create(p, Hooks{})
	if !p.State.Updatable() || p.State != StateNoMethod {
		t.Fatalf("created: %v", p.State)
	}
	ran := 0
	out := ops.Update(p, Update{Amount: 650, Method: "m", Metadata: map[string]*string{"a": nil}}, Hooks{Locked: func(Outcome) { ran++ }})
	if out.State != StateHasMethod || p.Amount != 650 || p.Currency != "usd" || p.Method != "m" || ran != 1 ||
		p.Metadata.Len() != 1 || p.Metadata.Map()["b"] != "2" || len(truth.Ops("")) != 0 {
		t.Fatalf("update: %+v, payment %+v", out, p)
	}
	ops.Confirm(p, Confirm{Key: "k", Method: "m", AttemptID: counter("at")}, Hooks{})
	if p.State.Updatable() {
		t.Fatalf("a confirmed payment is updatable: %v", p.State)
	}
}
