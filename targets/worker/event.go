package worker

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/targets/relay"
)

// TypeReminder is a logical message raised by some other system (a billing
// job's "invoice overdue"): two reminders for one business key within the
// window are one message, even though they are two requests.
const TypeReminder = "reminder"

// Reminder is the wire form of a reminder event.
type Reminder struct {
	Type        string `json:"type"`
	EventID     string `json:"event_id"`
	Recipient   string `json:"recipient"`
	Template    string `json:"template"`
	BusinessKey string `json:"business_key"`
}

// Encode returns the record value.
func (r Reminder) Encode() []byte {
	b, _ := json.Marshal(r)
	return b
}

// Intent names a reminder's notify op in the history: it announces no payment.
func (r Reminder) Intent() string {
	return "reminder:" + r.Recipient + ":" + r.Template + ":" + r.BusinessKey
}

// message is one decoded record: exactly one of pay and rem is set.
type message struct {
	eventID string
	pay     *relay.Event
	rem     *Reminder
}

// decode parses a record. An error is the dead-letter reason: the record can
// never be processed, so retrying it would block the partition forever.
func decode(r *kgo.Record) (message, error) {
	var head struct {
		Type    string `json:"type"`
		EventID string `json:"event_id"`
	}
	dec := json.NewDecoder(bytes.NewReader(r.Value))
	if err := json.Unmarshal(r.Value, &head); err != nil {
		return message{}, fmt.Errorf("malformed: value is not a JSON event: %v", err)
	}
	if head.EventID == "" {
		return message{}, fmt.Errorf("malformed: event_id is empty")
	}
	if string(r.Key) != head.EventID {
		return message{}, fmt.Errorf("malformed: record key %q differs from event_id %q", r.Key, head.EventID)
	}
	for _, h := range r.Headers {
		if h.Key == relay.HeaderEventID && string(h.Value) != head.EventID {
			return message{}, fmt.Errorf("malformed: header %s %q differs from event_id %q", h.Key, h.Value, head.EventID)
		}
	}
	dec.DisallowUnknownFields()
	switch head.Type {
	case relay.TypePaymentSucceeded:
		var ev relay.Event
		if err := dec.Decode(&ev); err != nil {
			return message{}, fmt.Errorf("malformed: %s: %v", head.Type, err)
		}
		if err := ev.Validate(); err != nil {
			return message{}, fmt.Errorf("malformed: %v", err)
		}
		return message{eventID: ev.EventID, pay: &ev}, nil
	case TypeReminder:
		var rem Reminder
		if err := dec.Decode(&rem); err != nil {
			return message{}, fmt.Errorf("malformed: %s: %v", head.Type, err)
		}
		if rem.Recipient == "" || rem.Template == "" || rem.BusinessKey == "" {
			return message{}, fmt.Errorf("malformed: reminder needs recipient, template and business_key")
		}
		return message{eventID: rem.EventID, rem: &rem}, nil
	default:
		return message{}, fmt.Errorf("malformed: unknown event type %q", head.Type)
	}
}
