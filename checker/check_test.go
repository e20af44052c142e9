package checker

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
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
		history.Op{Process: "psp", Op: history.OpCharge, Call: 5, Return: history.Int64(6), PaymentID: "pay_7"},                                                                            // no input
		history.Op{Process: "x", Op: "teleport", Call: 1},                                                                                                                                  // unknown op
		history.Op{Process: "reader", Op: history.OpBalance, Call: 9, Return: history.Int64(3), Input: history.Input{Merchant: "m1"}},                                                      // return before call
		history.Op{Process: "n", Op: history.OpNotify, Call: 9, PaymentID: "pay_7", Input: history.Input{ReplaceID: "r", Recipient: "u1"}, Output: &history.Output{Shown: history.Int(5)}}, // output of a null return is ignored
	)
	res := Check(h, CheckOptions{})
	if !res.OK() || res.Decided() || len(res.Invalid) != 3 {
		t.Fatalf("want no violation and 3 invalid ops:\n%s", res.Text())
	}
	if !strings.Contains(res.Invalid[0], `field "input.psp_key": missing`) {
		t.Fatalf("invalid = %v", res.Invalid)
	}
}

// FuzzReadThenCheck: whatever the reader accepts, the checker judges
// without a panic.
func FuzzReadThenCheck(f *testing.F) {
	legal, err := os.ReadFile("testdata/legal.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(legal)
	f.Add(append(legal, []byte(`{"process":"r","op":"balance","call":1,"return":null,"input":{"merchant":"m"}}`)...))
	f.Add([]byte(`{"process":"p","op":"notify","call":1,"return":2,"payment_id":"p","input":{"replace_id":"r","recipient":"u"},"output":{"shown":2,"alert":true}}`))
	f.Add([]byte(`{"process":"p","op":"credit","call":-5,"return":9223372036854775807,"payment_id":"p","input":{"merchant":"m","amount":-1,"event_id":"e"}}`))
	f.Add([]byte(`{"process":1}`))
	f.Add([]byte("\x00\xff{"))
	f.Add([]byte(`{"process":"p","op":"create","call":1e3,"return":null}`))
	f.Add([]byte(`{"input":{"metadata":{"intent":5}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := history.ReadJSONL(bytes.NewReader(data))
		if err != nil {
			var ie *history.InputError
			if !errors.As(err, &ie) || ie.Line < 1 {
				t.Fatalf("error is not a located *InputError: %v", err)
			}
			return
		}
		// Whatever the reader accepts, the checker must digest.
		Check(h, CheckOptions{})
	})
}
