package pspfront

import (
	"errors"
	"testing"
)

// A record comes back as the exchange it was, empty strings and the lost
// flag included, and one cut short anywhere is an error, never a shorter
// exchange.
func TestRecordRoundTrip(t *testing.T) {
	for i, x := range []Exchange{
		{},
		{Method: "POST", Path: "/v1/payment_intents", Key: "k", Body: "amount=1\n", Status: 200, RespBody: `{"id":"pi_1"}`},
		{Method: "POST", Path: "/v1/refunds", Status: 0, RespBody: "pspfront: EOF", Lost: true},
	} {
		b := encodeRecord(1000+i, x)
		n, got, err := decodeRecord(b)
		if err != nil || n != 1000+i || got != x {
			t.Fatalf("record %d came back as %d %+v %v, want %+v", i, n, got, err, x)
		}
		for cut := range len(b) {
			if _, _, err := decodeRecord(b[:cut]); !errors.Is(err, errRecord) {
				t.Fatalf("record %d cut at %d of %d: error %v, want errRecord", i, cut, len(b), err)
			}
		}
	}
}
