package relay

import (
	"encoding/json"
	"testing"
)

func TestEventRoundTripAndValidate(t *testing.T) {
	ev := Event{Type: TypePaymentSucceeded, EventID: "pay_7:SUCCEEDED", PaymentID: "pay_7", Merchant: "m1", Amount: 3000, Currency: "USD"}
	var back Event
	if err := json.Unmarshal(ev.Encode(), &back); err != nil || back != ev {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	if err := ev.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []func(*Event){
		func(e *Event) { e.Type = "x" },
		func(e *Event) { e.EventID = "" },
		func(e *Event) { e.PaymentID = "" },
		func(e *Event) { e.Merchant = "" },
		func(e *Event) { e.Amount = 0 },
		func(e *Event) { e.Currency = "" },
	}
	for i, f := range bad {
		e := ev
		f(&e)
		if e.Validate() == nil {
			t.Errorf("case %d: %+v validated", i, e)
		}
	}
}
