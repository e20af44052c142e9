package history

import (
	"encoding/binary"
	"reflect"
	"testing"
)

// TestOpBinaryRoundTrip: a record decodes to the op it was made of, every
// field and every set-but-zero pointer included.
func TestOpBinaryRoundTrip(t *testing.T) {
	h, _ := Generate(GenOptions{Seed: 4, Ops: 3000, UnknownRate: 0.3})
	full := Op{Process: "p", Op: OpCreate, Call: -5, Return: Int64(0), Intent: "i", PaymentID: "pay", Region: "R1",
		Input: Input{Fingerprint: "f", Amount: Int64(-1), Currency: "usd", PSPKey: "k", ChargeID: "c", Merchant: "m",
			EventID: "e", ReplaceID: "r", Recipient: "u", Request: "q", Metadata: map[string]string{"a": "", "b": "é"}, Day: "d",
			ShapeInput: ShapeInput{Device: "D", Item: "I", Value: "v", Counter: Int64(1 << 40), PhoneTime: Int64(0), Message: "M", From: "F", To: "T", Offset: Int64(7)}},
		Output: &Output{Outcome: "o", PaymentID: "p2", ChargeID: "c2", RefundID: "re", Shown: Int(0), Alert: Bool(false),
			Balance: Int64(0), Total: Int64(-3), Tag: Int64(2), ShapeOutput: ShapeOutput{Value: "w", Folders: Folders(), Stored: Bool(true)}}}
	empty := Op{Input: Input{Metadata: map[string]string{}}, Output: &Output{Alert: Bool(true), ShapeOutput: ShapeOutput{Folders: Folders("x", "")}}}
	h = append(h, full, empty, Op{})
	var data []byte
	for i := range h {
		rec := AppendOpBinary(nil, &h[i])
		data = binary.AppendUvarint(data, uint64(len(rec)))
		data = append(data, rec...)
	}
	got, err := DecodeOpsBinary(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(h) {
		t.Fatalf("%d ops back, %d in", len(got), len(h))
	}
	for i := range h {
		if !reflect.DeepEqual(got[i], h[i]) {
			t.Fatalf("op %d:\n got %+v\nwant %+v", i, got[i], h[i])
		}
	}
	if _, err := DecodeOpsBinary(data[:len(data)-1]); err == nil {
		t.Fatal("a cut record decoded")
	}
}
