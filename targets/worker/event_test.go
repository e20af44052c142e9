package worker

import (
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/targets/relay"
)

func TestDecode(t *testing.T) {
	ev := relay.Event{Type: relay.TypePaymentSucceeded, EventID: "pay_7:SUCCEEDED", PaymentID: "pay_7", Merchant: "m1", Amount: 3000, Currency: "USD"}
	rem := Reminder{Type: TypeReminder, EventID: "rem-1", Recipient: "u1", Template: "invoice_overdue", BusinessKey: "inv_1"}
	hdr := func(v string) []kgo.RecordHeader {
		return []kgo.RecordHeader{{Key: relay.HeaderEventID, Value: []byte(v)}}
	}
	good := []*kgo.Record{
		{Key: []byte(ev.EventID), Value: ev.Encode(), Headers: hdr(ev.EventID)},
		{Key: []byte(rem.EventID), Value: rem.Encode()},
	}
	for i, r := range good {
		m, err := decode(r)
		if err != nil {
			t.Fatalf("good %d: %v", i, err)
		}
		if m.eventID != string(r.Key) || (m.pay == nil) == (m.rem == nil) {
			t.Fatalf("good %d: %+v", i, m)
		}
	}
	bad := map[string]*kgo.Record{
		"not a JSON":            {Key: []byte("x"), Value: []byte("{not json")},
		"event_id is empty":     {Key: []byte(""), Value: []byte(`{"type":"payment.succeeded"}`)},
		"differs from event_id": {Key: []byte("other"), Value: ev.Encode()},
		"header event_id":       {Key: []byte(ev.EventID), Value: ev.Encode(), Headers: hdr("other")},
		"unknown event type":    {Key: []byte("e"), Value: []byte(`{"type":"refund","event_id":"e"}`)},
		"amount 0":              {Key: []byte("e"), Value: []byte(`{"type":"payment.succeeded","event_id":"e","payment_id":"p","merchant":"m1","amount":0,"currency":"USD"}`)},
		"unknown field":         {Key: []byte("e"), Value: []byte(`{"type":"payment.succeeded","event_id":"e","payment_id":"p","merchant":"m1","amount":1,"currency":"USD","x":1}`)},
		"business_key":          {Key: []byte("r"), Value: []byte(`{"type":"reminder","event_id":"r","recipient":"u1","template":"t"}`)},
	}
	for want, r := range bad {
		_, err := decode(r)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "malformed: ") {
			t.Errorf("%s: got %v", want, err)
		}
	}
}
