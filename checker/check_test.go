package checker

import (
	"strings"
	"testing"
)

func TestCheckEmpty(t *testing.T) {
	res := Check(nil, CheckOptions{})
	if !res.OK() || !res.Decided() || res.Partitions != 0 {
		t.Fatalf("empty history: %s", res.Text())
	}
}

// TestCheckInMemoryInvalid: an in-memory history may hold ops the reader
// would refuse; they are left out and listed, never a panic.
func TestCheckInMemoryInvalid(t *testing.T) {
	h := readTestdata(t, "legal.jsonl")
	h = append(h,
		Op{Process: "psp", Op: OpCharge, Call: 5, Return: Int64(6), PaymentID: "pay_7"},                                                            // no input
		Op{Process: "x", Op: "teleport", Call: 1},                                                                                                  // unknown op
		Op{Process: "reader", Op: OpBalance, Call: 9, Return: Int64(3), Input: Input{Merchant: "m1"}},                                              // return before call
		Op{Process: "n", Op: OpNotify, Call: 9, PaymentID: "pay_7", Input: Input{ReplaceID: "r", Recipient: "u1"}, Output: &Output{Shown: Int(5)}}, // output of a null return is ignored
	)
	res := Check(h, CheckOptions{})
	if !res.OK() || res.Decided() || len(res.Invalid) != 3 {
		t.Fatalf("want no violation and 3 invalid ops:\n%s", res.Text())
	}
	if !strings.Contains(res.Invalid[0], `field "input.psp_key": missing`) {
		t.Fatalf("invalid = %v", res.Invalid)
	}
}
