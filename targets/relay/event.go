// Package relay is the outbox relay: it claims outbox rows, publishes each as
// a Kafka record keyed by its event id, and deletes the rows only after the
// broker acknowledged them. A crash between publish and delete re-sends the
// row with the id it finds there, so repeats keep their identity and the
// consumer's inbox can recognise them.
package relay

import (
	"encoding/json"
	"fmt"
)

// TypePaymentSucceeded is the type of the events the relay publishes.
const TypePaymentSucceeded = "payment.succeeded"

// HeaderEventID carries the event id next to the record key, so a consumer
// can check the two agree (a mismatch is a malformed record).
const HeaderEventID = "event_id"

// Event is the wire form of an outbox row.
type Event struct {
	Type      string `json:"type"`
	EventID   string `json:"event_id"`
	PaymentID string `json:"payment_id"`
	Merchant  string `json:"merchant"`
	Amount    int64  `json:"amount"`
	Currency  string `json:"currency"`
}

// Encode returns the record value.
func (e Event) Encode() []byte {
	b, _ := json.Marshal(e) // plain strings and ints cannot fail
	return b
}

// Validate names the first field that makes e unusable.
func (e Event) Validate() error {
	switch {
	case e.Type != TypePaymentSucceeded:
		return fmt.Errorf("type %q is not %q", e.Type, TypePaymentSucceeded)
	case e.EventID == "":
		return fmt.Errorf("event_id is empty")
	case e.PaymentID == "":
		return fmt.Errorf("payment_id is empty")
	case e.Merchant == "":
		return fmt.Errorf("merchant is empty")
	case e.Amount <= 0:
		return fmt.Errorf("amount %d is not positive", e.Amount)
	case e.Currency == "":
		return fmt.Errorf("currency is empty")
	}
	return nil
}
